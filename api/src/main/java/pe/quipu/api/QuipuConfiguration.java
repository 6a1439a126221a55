package pe.quipu.api;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.core.Configuration;
import io.dropwizard.util.Duration;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import pe.quipu.core.db.DatabaseSettings;

import java.nio.file.Path;
import java.util.Objects;

/** config.yml, read by the API and the ETL. The etl: section is the ETL's (EtlSettings); the API ignores it. */
@JsonIgnoreProperties({"etl"})
public class QuipuConfiguration extends Configuration {

    @NotNull
    @Pattern(regexp = "development|production", message = "must be development or production (QUIPU_ENV)")
    @JsonProperty
    private String environment = "development";

    @Valid
    @NotNull
    @JsonProperty
    private DatabaseConfig database = new DatabaseConfig();

    @Valid
    @NotNull
    @JsonProperty
    private BcrpConfig bcrp = new BcrpConfig();

    @Valid
    @NotNull
    @JsonProperty
    private FreshnessConfig freshness = new FreshnessConfig();

    public String getEnvironment() {
        return environment;
    }

    public boolean isProduction() {
        return "production".equals(environment);
    }

    public DatabaseConfig getDatabase() {
        return database;
    }

    public BcrpConfig getBcrp() {
        return bcrp;
    }

    public FreshnessConfig getFreshness() {
        return freshness;
    }

    public static class DatabaseConfig {
        @JsonProperty
        private String url = "";
        @JsonProperty
        private String user = "";
        @JsonProperty
        private String password = "";
        @NotNull
        @JsonProperty
        private String embeddedDataDirectory = "./data/postgres";
        @Min(0)
        @Max(65535)
        @JsonProperty
        private int embeddedPort;
        @Min(2)
        @JsonProperty
        private int maxConnections = 32;

        /** Unset values (an empty ${VAR:-} reads as YAML null) become empty strings. */
        public DatabaseSettings settings() {
            return new DatabaseSettings(Objects.requireNonNullElse(url, ""), Objects.requireNonNullElse(user, ""),
                    Objects.requireNonNullElse(password, ""), Path.of(embeddedDataDirectory), embeddedPort);
        }

        public int getMaxConnections() {
            return maxConnections;
        }
    }

    public static class BcrpConfig {
        @NotNull
        @JsonProperty
        private String baseUrl = "https://estadisticas.bcrp.gob.pe/estadisticas/series/api";
        @NotNull
        @JsonProperty
        private Duration attemptTimeout = Duration.milliseconds(1400);
        @Min(1)
        @Max(5)
        @JsonProperty
        private int maxAttempts = 3;
        @NotNull
        @JsonProperty
        private Duration retryWait = Duration.milliseconds(200);
        @NotNull
        @JsonProperty
        private Duration captureInterval = Duration.minutes(30);
        @JsonProperty
        private boolean captureEnabled = true;

        public String getBaseUrl() {
            return baseUrl;
        }

        public Duration getAttemptTimeout() {
            return attemptTimeout;
        }

        public int getMaxAttempts() {
            return maxAttempts;
        }

        public Duration getRetryWait() {
            return retryWait;
        }

        public Duration getCaptureInterval() {
            return captureInterval;
        }

        public boolean isCaptureEnabled() {
            return captureEnabled;
        }
    }

    public static class FreshnessConfig {
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
}
