package pe.quipu.api.throttle;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import pe.quipu.api.domain.Text;

import java.time.Clock;

/** A {@link KeyedThrottle} in config.yml: {@code limit} events per {@code period}, refilled evenly. */
public final class ThrottleSettings {
    @Min(1)
    @JsonProperty
    private int limit;
    @NotNull
    @JsonProperty
    private Duration period;

    public ThrottleSettings() {
        this(60, Duration.hours(1));
    }

    public ThrottleSettings(int limit, Duration period) {
        this.limit = limit;
        this.period = period;
    }

    public int getLimit() {
        return limit;
    }

    public Duration getPeriod() {
        return period;
    }

    /** {@code what}: the events counted, as {@link KeyedThrottle} names them in its refusal. */
    public KeyedThrottle throttle(Text what, Clock clock) {
        return new KeyedThrottle(what, limit, period.toJavaDuration(), clock);
    }
}
