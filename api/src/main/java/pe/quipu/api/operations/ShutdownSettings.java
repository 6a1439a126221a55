package pe.quipu.api.operations;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MaxDuration;
import jakarta.validation.constraints.NotNull;

import java.util.concurrent.TimeUnit;

/** config.yml's {@code shutdown:} (contract §13): what happens between SIGTERM and the exit. */
public final class ShutdownSettings {

    /** After /readyz turns 503, how long connections are still accepted, for load balancers to notice. */
    @NotNull
    @MaxDuration(value = 5, unit = TimeUnit.MINUTES)
    @JsonProperty
    private Duration drainDelay = Duration.seconds(5);

    /** Then, how long the requests in flight have to finish. */
    @NotNull
    @MaxDuration(value = 5, unit = TimeUnit.MINUTES)
    @JsonProperty
    private Duration grace = Duration.seconds(10);

    public Duration getDrainDelay() {
        return drainDelay;
    }

    public Duration getGrace() {
        return grace;
    }
}
