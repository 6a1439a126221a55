package pe.quipu.api.status;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import jakarta.validation.constraints.NotNull;

/** The {@code freshness:} section of config.yml: how old the data may be before the health check fails. */
public final class FreshnessSettings {
    @NotNull
    @JsonProperty
    private Duration registryMaxAge = Duration.days(3);
    @NotNull
    @JsonProperty
    private Duration exchangeRateMaxAge = Duration.days(7);

    public Duration getRegistryMaxAge() {
        return registryMaxAge;
    }

    public Duration getExchangeRateMaxAge() {
        return exchangeRateMaxAge;
    }
}
