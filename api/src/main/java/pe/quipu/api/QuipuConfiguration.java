package pe.quipu.api;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.core.Configuration;
import io.dropwizard.logging.common.LoggingFactory;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MaxDuration;
import jakarta.validation.Valid;
import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import pe.quipu.api.accounts.AuthSettings;
import pe.quipu.api.platform.LogFormat;
import pe.quipu.api.platform.OperatorCommand;
import pe.quipu.api.keys.KeysSettings;
import pe.quipu.api.metering.MeteringSettings;
import pe.quipu.api.operations.AdminSettings;
import pe.quipu.api.operations.ShutdownSettings;
import pe.quipu.api.operations.TaskCommand;
import pe.quipu.api.ruc.RucSettings;
import pe.quipu.api.plans.PlanSettings;
import pe.quipu.api.plans.SubscriptionsSettings;
import pe.quipu.api.privacy.PrivacySettings;
import pe.quipu.api.status.FreshnessSettings;
import pe.quipu.api.training.TrainCommand;
import pe.quipu.api.webhooks.DeliverCommand;
import pe.quipu.api.webhooks.WebhooksSettings;
import pe.quipu.core.db.DatabaseSettings;
import pe.quipu.core.fx.BcrpSettings;
import pe.quipu.core.ruc.ChangesSettings;
import pe.quipu.core.fx.SunatFxSettings;
import pe.quipu.core.ruc.SearchSettings;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.Map;

/**
 * config.yml as the API reads it: one section per feature, each bound to the settings class its feature owns. The
 * ETL reads the same file into the same {@code database:} and {@code bcrp:} classes, and its own {@code etl:}
 * section, which the API ignores. Only the application reads this class; features get their own section.
 */
@JsonIgnoreProperties({"etl"})
public class QuipuConfiguration extends Configuration
        implements OperatorCommand.DatabaseConfigured, DeliverCommand.Configured, TrainCommand.Configured,
        TaskCommand.Configured {

    @NotNull
    @Pattern(regexp = "development|production", message = "must be development or production (QUIPU_ENV)")
    @JsonProperty
    private String environment = "development";

    @Valid
    @NotNull
    @JsonProperty
    private DatabaseSettings database = new DatabaseSettings();

    @Valid
    @NotNull
    @JsonProperty
    private BcrpSettings bcrp = new BcrpSettings();

    /** SUNAT's exchange-rate publication (contract §12): where it is, its bounds, its capture. */
    @Valid
    @NotNull
    @JsonProperty
    private SunatFxSettings sunatFx = new SunatFxSettings();

    @Valid
    @NotNull
    @JsonProperty
    private FreshnessSettings freshness = new FreshnessSettings();

    @Valid
    @NotNull
    @JsonProperty
    private AuthSettings auth = new AuthSettings();

    @Valid
    @NotNull
    @JsonProperty
    private KeysSettings keys = new KeysSettings();

    /** The plan table (contract §2), by plan name; {@code free} is every new account's plan and must exist. */
    @Valid
    @NotNull
    @JsonProperty
    private Map<String, PlanSettings> plans = new LinkedHashMap<>();

    @Valid
    @NotNull
    @JsonProperty
    private MeteringSettings metering = new MeteringSettings();

    @Valid
    @NotNull
    @JsonProperty
    private RucSettings ruc = new RucSettings();

    /** Search by name ({@code GET /v1/ruc?q=}); the ETL reads the same section to build, or not, its index. */
    @Valid
    @NotNull
    @JsonProperty
    private SearchSettings search = new SearchSettings();

    /** The registry's change log: its retention (pruned here) and the ETL's guard against large removals. */
    @Valid
    @NotNull
    @JsonProperty
    private ChangesSettings changes = new ChangesSettings();

    /** How long the lookups run at most at start-up, until the JIT has settled ({@code training.WarmUp}); 0s: none. */
    @NotNull
    @MaxDuration(value = 2, unit = TimeUnit.MINUTES)
    @JsonProperty
    private Duration warmUp = Duration.seconds(0);

    /** Whether the application port stays closed until the warm-up has ended, instead of serving beside it. */
    @JsonProperty
    private boolean warmUpHoldsPort;

    @Valid
    @NotNull
    @JsonProperty
    private SubscriptionsSettings subscriptions = new SubscriptionsSettings();

    @Valid
    @NotNull
    @JsonProperty
    private WebhooksSettings webhooks = new WebhooksSettings();

    @Valid
    @NotNull
    @JsonProperty
    private PrivacySettings privacy = new PrivacySettings();

    /** The operator tasks' admin token (contract §13). */
    @Valid
    @NotNull
    @JsonProperty
    private AdminSettings adminTasks = new AdminSettings();

    /** QUIPU_LOG_FORMAT: text (the default) or json, for the application and request logs alike (contract §13). */
    @NotNull
    @Pattern(regexp = "text|json", message = "must be text or json (QUIPU_LOG_FORMAT)")
    @JsonProperty
    private String logFormat = LogFormat.TEXT;

    @JsonIgnore
    private boolean jsonLayoutsSet;

    public boolean isJsonLogs() {
        return LogFormat.JSON.equals(logFormat);
    }

    /** The logging settings, with the JSON layout on every appender that names none when the format is json. */
    @Override
    public synchronized LoggingFactory getLoggingFactory() {
        LoggingFactory logging = super.getLoggingFactory();
        if (isJsonLogs() && !jsonLayoutsSet) {
            LogFormat.useJson(logging);
            jsonLayoutsSet = true;
        }
        return logging;
    }

    /** false only to measure what request ids and request metrics cost (bench/operations.sh); never in production. */
    @JsonProperty
    private boolean instrumentRequests = true;

    public boolean isInstrumentRequests() {
        return instrumentRequests;
    }

    @AssertTrue(message = "instrumentRequests is never false in production: request ids are part of the contract")
    @JsonIgnore
    public boolean isRequestInstrumentationOnInProduction() {
        return !isProduction() || instrumentRequests;
    }

    /** Between SIGTERM and the exit (contract §13). */
    @Valid
    @NotNull
    @JsonProperty
    private ShutdownSettings shutdown = new ShutdownSettings();

    public ShutdownSettings getShutdown() {
        return shutdown;
    }

    @Override
    public AdminSettings getAdminTasks() {
        return adminTasks;
    }

    public String getEnvironment() {
        return environment;
    }

    @Override
    public WebhooksSettings getWebhooks() {
        return webhooks;
    }

    @AssertTrue(message = "webhooks.allowHttp and webhooks.allowPrivateNetworks are never on in production")
    @JsonIgnore
    public boolean isWebhooksSafeForEnvironment() {
        return !webhooks.unsafeFor(isProduction());
    }

    public PrivacySettings getPrivacy() {
        return privacy;
    }

    /** Ley 29733: an export must name the data controller, so production does not start without one. */
    @AssertTrue(message = "privacy.controller (nombre, documento, email, domicilio) must be set, not empty nor a"
            + " PLACEHOLDER, in production: QUIPU_PRIVACY_CONTROLLER_NOMBRE, _DOCUMENTO, _EMAIL, _DOMICILIO")
    @JsonIgnore
    public boolean isPrivacyControllerSetForEnvironment() {
        return !isProduction() || privacy.isControllerSet();
    }

    @Override
    public boolean isProduction() {
        return "production".equals(environment);
    }

    /** What this configuration lets through that production would refuse, each named; none in production. */
    @Override
    @JsonIgnore
    public List<String> developmentRelaxations() {
        if (isProduction()) {
            return List.of();
        }
        List<String> relaxed = new ArrayList<>(webhooks.developmentRelaxations());
        relaxed.addAll(auth.developmentRelaxations());
        relaxed.addAll(privacy.developmentRelaxations());
        relaxed.addAll(adminTasks.developmentRelaxations());
        return relaxed;
    }

    @Override
    public DatabaseSettings getDatabase() {
        return database;
    }

    @Override
    public BcrpSettings getBcrp() {
        return bcrp;
    }

    @Override
    public SunatFxSettings getSunatFx() {
        return sunatFx;
    }

    public FreshnessSettings getFreshness() {
        return freshness;
    }

    public AuthSettings getAuth() {
        return auth;
    }

    public KeysSettings getKeys() {
        return keys;
    }

    @Override
    public Map<String, PlanSettings> getPlans() {
        return plans;
    }

    public MeteringSettings getMetering() {
        return metering;
    }

    public RucSettings getRuc() {
        return ruc;
    }

    public SearchSettings getSearch() {
        return search;
    }

    public ChangesSettings getChanges() {
        return changes;
    }

    public Duration getWarmUp() {
        return warmUp;
    }

    public boolean isWarmUpHoldsPort() {
        return warmUpHoldsPort;
    }

    public SubscriptionsSettings getSubscriptions() {
        return subscriptions;
    }

    @AssertTrue(message = "plans must define free, the plan of every new account")
    @JsonIgnore
    public boolean isFreePlanDefined() {
        return plans.containsKey("free");
    }
}
