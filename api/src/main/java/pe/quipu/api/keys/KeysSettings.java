package pe.quipu.api.keys;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Min;
import pe.quipu.api.throttle.ThrottleSettings;
import jakarta.validation.constraints.NotNull;

/** The {@code keys:} section of config.yml. */
public final class KeysSettings {
    /** How long a rotated key keeps working. */
    @NotNull
    @JsonProperty
    private Duration rotationGrace = Duration.hours(24);
    /** Working keys (active, or in grace) an account may hold; creating or rotating beyond it is 409. */
    @Min(1)
    @JsonProperty
    private int maxPerAccount = 50;
    /** How often each instance writes the keys' lastUsedAt it noted in memory. */
    @NotNull
    @JsonProperty
    private Duration lastUsedFlushInterval = Duration.seconds(5);
    /** Key creations, rotations and revocations per account (429 beyond it). */
    @Valid
    @NotNull
    @JsonProperty
    private ThrottleSettings operationThrottle = new ThrottleSettings(60, Duration.hours(1));

    public ThrottleSettings getOperationThrottle() {
        return operationThrottle;
    }

    public Duration getRotationGrace() {
        return rotationGrace;
    }

    public int getMaxPerAccount() {
        return maxPerAccount;
    }

    public Duration getLastUsedFlushInterval() {
        return lastUsedFlushInterval;
    }
}
