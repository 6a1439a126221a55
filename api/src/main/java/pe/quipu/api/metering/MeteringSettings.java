package pe.quipu.api.metering;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MaxDuration;
import io.dropwizard.validation.MinDuration;
import jakarta.validation.constraints.NotNull;

import java.util.concurrent.TimeUnit;

/** The {@code metering:} section of config.yml. */
public final class MeteringSettings {
    /** false switches rate limits and quotas off (for benchmarks and private deployments). */
    @JsonProperty
    private boolean enabled = true;
    /**
     * How often each instance adds its counts to the shared ones and reads the others'. The limits hold across
     * instances whatever it is (a request that would run too far ahead syncs first); it bounds how stale the
     * headers and {@code GET /v1/usage} are on one instance about another's requests, and what a crash loses.
     */
    @NotNull
    @MinDuration(value = 10, unit = TimeUnit.MILLISECONDS)
    @MaxDuration(value = 10, unit = TimeUnit.MINUTES)
    @JsonProperty
    private Duration syncInterval = Duration.milliseconds(250);

    public boolean isEnabled() {
        return enabled;
    }

    public Duration getSyncInterval() {
        return syncInterval;
    }
}
