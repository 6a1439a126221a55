package pe.quipu.api.status;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.NotNull;
import pe.quipu.core.fx.Fuente;

import java.util.Map;

/** The {@code freshness:} section of config.yml: how old the data may be before the health check fails. */
public final class FreshnessSettings {
    @NotNull
    @JsonProperty
    private Duration registryMaxAge = Duration.days(3);
    /** How old each source's latest rate may be, unless {@link #exchangeRateMaxAgeBySource} says otherwise. */
    @NotNull
    @JsonProperty
    private Duration exchangeRateMaxAge = Duration.days(7);
    /** Per source ({@code bcrp}, {@code sbs}, {@code sunat}), a limit of its own. */
    @NotNull
    @JsonProperty
    private Map<String, Duration> exchangeRateMaxAgeBySource = Map.of();

    public Duration getRegistryMaxAge() {
        return registryMaxAge;
    }

    public Duration getExchangeRateMaxAge() {
        return exchangeRateMaxAge;
    }

    /** How old the latest rate of {@code fuente} may be. */
    public Duration exchangeRateMaxAge(Fuente fuente) {
        return exchangeRateMaxAgeBySource.getOrDefault(fuente.code(), exchangeRateMaxAge);
    }

    @AssertTrue(message = "exchangeRateMaxAgeBySource takes bcrp, sbs and sunat")
    @JsonIgnore
    public boolean isEverySourceKnown() {
        return exchangeRateMaxAgeBySource.keySet().stream().allMatch(code -> Fuente.fromCode(code).isPresent());
    }
}
