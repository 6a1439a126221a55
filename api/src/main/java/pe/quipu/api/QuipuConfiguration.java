package pe.quipu.api;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.core.Configuration;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MaxDuration;
import io.dropwizard.validation.MinDuration;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import pe.quipu.core.db.DatabaseSettings;

import com.fasterxml.jackson.annotation.JsonIgnore;
import jakarta.validation.constraints.AssertTrue;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

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

    @Valid
    @NotNull
    @JsonProperty
    private AuthConfig auth = new AuthConfig();

    @Valid
    @NotNull
    @JsonProperty
    private KeysConfig keys = new KeysConfig();

    /** The plan table (contract §2), by plan name; {@code free} is every new account's plan and must exist. */
    @Valid
    @NotNull
    @JsonProperty
    private Map<String, PlanConfig> plans = new LinkedHashMap<>();

    @Valid
    @NotNull
    @JsonProperty
    private MeteringConfig metering = new MeteringConfig();

    @Valid
    @NotNull
    @JsonProperty
    private SubscriptionsConfig subscriptions = new SubscriptionsConfig();

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

    public AuthConfig getAuth() {
        return auth;
    }

    public KeysConfig getKeys() {
        return keys;
    }

    public Map<String, PlanConfig> getPlans() {
        return plans;
    }

    public MeteringConfig getMetering() {
        return metering;
    }

    public SubscriptionsConfig getSubscriptions() {
        return subscriptions;
    }

    @AssertTrue(message = "plans must define free, the plan of every new account")
    @JsonIgnore
    public boolean isFreePlanDefined() {
        return plans.containsKey("free");
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
        /**
         * {@code name=value …}: extra PostgreSQL settings for an embedded server this process starts (a running one
         * keeps its own), e.g. {@code shared_preload_libraries=pg_stat_statements} for bench/metering.sh.
         */
        @Pattern(regexp = "\\s*([a-z_][a-z0-9_.]*=[A-Za-z0-9_.,:/+-]+\\s*)*",
                message = "must be space-separated name=value PostgreSQL settings (QUIPU_EMBEDDED_DB_SETTINGS)")
        @JsonProperty
        private String embeddedServerSettings = "";

        /** Unset values (an empty ${VAR:-} reads as YAML null) become empty strings. */
        public DatabaseSettings settings() {
            return new DatabaseSettings(Objects.requireNonNullElse(url, ""), Objects.requireNonNullElse(user, ""),
                    Objects.requireNonNullElse(password, ""), Path.of(embeddedDataDirectory), embeddedPort,
                    DatabaseSettings.parseServerSettings(embeddedServerSettings));
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

    /** Accounts and sessions (contract §2). */
    public static class AuthConfig {
        @NotNull
        @JsonProperty
        private String issuer = "quipu";
        @NotNull
        @JsonProperty
        private Duration accessTokenLifetime = Duration.minutes(15);
        @NotNull
        @JsonProperty
        private Duration refreshTokenLifetime = Duration.days(30);
        /** JWT_SIGNING_KEY: a file holding the private EC P-256 key as a JWK. Required in production. */
        @JsonProperty
        private String signingKeyFile = "";
        /** Development only, when signingKeyFile is empty: generated on first start and kept here. */
        @NotNull
        @JsonProperty
        private String developmentSigningKeyFile = "./data/jwt-signing-key.json";
        @Valid
        @NotNull
        @JsonProperty
        private LoginThrottleConfig loginThrottle = new LoginThrottleConfig();

        public String getIssuer() {
            return issuer;
        }

        public Duration getAccessTokenLifetime() {
            return accessTokenLifetime;
        }

        public Duration getRefreshTokenLifetime() {
            return refreshTokenLifetime;
        }

        /** Empty when unset. */
        public String getSigningKeyFile() {
            return Objects.requireNonNullElse(signingKeyFile, "");
        }

        public String getDevelopmentSigningKeyFile() {
            return developmentSigningKeyFile;
        }

        public LoginThrottleConfig getLoginThrottle() {
            return loginThrottle;
        }
    }

    /** Login throttling, per instance: failed logins per email, attempts per client address (IPv6: per /64). */
    public static class LoginThrottleConfig {
        @Min(1)
        @JsonProperty
        private int failuresPerEmail = 5;
        @NotNull
        @JsonProperty
        private Duration emailPeriod = Duration.minutes(15);
        @Min(1)
        @JsonProperty
        private int attemptsPerAddress = 30;
        @NotNull
        @JsonProperty
        private Duration addressPeriod = Duration.minutes(1);

        public int getFailuresPerEmail() {
            return failuresPerEmail;
        }

        public Duration getEmailPeriod() {
            return emailPeriod;
        }

        public int getAttemptsPerAddress() {
            return attemptsPerAddress;
        }

        public Duration getAddressPeriod() {
            return addressPeriod;
        }
    }

    public static class KeysConfig {
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

    /** One row of the plan table. */
    public static class PlanConfig {
        @Min(0)
        @JsonProperty
        private long monthlyQuota;
        @Min(0)
        @JsonProperty
        private int rateLimitRpm;
        @Min(1)
        @JsonProperty
        private int batchCap = 1;
        @Min(0)
        @JsonProperty
        private int webhookEndpoints;

        public long getMonthlyQuota() {
            return monthlyQuota;
        }

        public int getRateLimitRpm() {
            return rateLimitRpm;
        }

        public int getBatchCap() {
            return batchCap;
        }

        public int getWebhookEndpoints() {
            return webhookEndpoints;
        }
    }

    public static class MeteringConfig {
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

    /** Renewals and cancellations that fall due with time (contract §2). */
    public static class SubscriptionsConfig {
        /** How often each instance applies the due ones; several instances may run it at once. */
        @NotNull
        @MinDuration(value = 1, unit = TimeUnit.SECONDS)
        @JsonProperty
        private Duration applyInterval = Duration.minutes(1);

        public Duration getApplyInterval() {
            return applyInterval;
        }
    }
}
