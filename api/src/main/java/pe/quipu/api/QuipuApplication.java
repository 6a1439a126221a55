package pe.quipu.api;

import com.codahale.metrics.MetricRegistry;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.dropwizard.auth.AuthDynamicFeature;
import io.dropwizard.auth.PolymorphicAuthValueFactoryProvider;
import io.dropwizard.configuration.EnvironmentVariableSubstitutor;
import io.dropwizard.configuration.SubstitutingSourceProvider;
import io.dropwizard.core.Application;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.db.DataSourceFactory;
import io.dropwizard.jdbi3.JdbiFactory;
import io.dropwizard.lifecycle.Managed;
import io.dropwizard.migrations.MigrationsBundle;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.component.LifeCycle;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import pe.quipu.api.accounts.AccessTokens;
import pe.quipu.api.accounts.AccountDeletion;
import pe.quipu.api.accounts.AccountPurge;
import pe.quipu.api.accounts.PurgeDeletedTask;
import pe.quipu.api.accounts.AccountService;
import pe.quipu.api.accounts.AuthResource;
import pe.quipu.api.accounts.AuthSettings;
import pe.quipu.api.accounts.EmailIdentityBackfill;
import pe.quipu.api.accounts.GenerateSigningKeyCommand;
import pe.quipu.api.accounts.GrantAdminTask;
import pe.quipu.api.accounts.JwksResource;
import pe.quipu.api.accounts.LoginThrottleSettings;
import pe.quipu.api.accounts.MeResource;
import pe.quipu.api.accounts.PasswordHasher;
import pe.quipu.api.accounts.Profiles;
import pe.quipu.api.accounts.SessionCleanup;
import pe.quipu.api.accounts.SigningKey;
import pe.quipu.api.accounts.TokenDenylist;
import pe.quipu.api.audit.AuditLog;
import pe.quipu.api.audit.AuditRetention;
import pe.quipu.api.auth.ApiKeyPrincipal;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.auth.BearerAuthenticator;
import pe.quipu.api.auth.BearerHeaderAuthFilter;
import pe.quipu.api.auth.QuipuPrincipal;
import pe.quipu.api.auth.ScopeFeature;
import pe.quipu.api.auth.SessionFeature;
import pe.quipu.api.auth.SessionPrincipal;
import pe.quipu.api.db.DatabaseSupport;
import pe.quipu.api.db.ExactCache;
import pe.quipu.api.db.NotificationListener;
import pe.quipu.api.dashboard.DashboardServlet;
import pe.quipu.api.docs.DocsAssets;
import pe.quipu.api.docs.DocsServlet;
import pe.quipu.api.fx.ExchangeRateService;
import pe.quipu.api.fx.ExchangeRateStore;
import pe.quipu.api.fx.RateCapture;
import pe.quipu.api.fx.TipoCambioResource;
import pe.quipu.api.http.CredentialPlacement;
import pe.quipu.api.http.WarmUp;
import pe.quipu.api.http.JsonBody;
import pe.quipu.api.http.Problem;
import pe.quipu.api.http.ProblemErrorHandler;
import pe.quipu.api.http.ProblemExceptionMapper;
import pe.quipu.api.http.ProblemUnauthorizedHandler;
import pe.quipu.api.http.RedactingRequestLogLayout;
import pe.quipu.api.http.RequestContentEncoding;
import pe.quipu.api.http.UnreadBodyFilter;
import pe.quipu.api.keys.AccountKeys;
import pe.quipu.api.keys.ApiKeyAuthenticator;
import pe.quipu.api.keys.ApiKeySecret;
import pe.quipu.api.keys.CreateKeyCommand;
import pe.quipu.api.keys.KeyChangeListener;
import pe.quipu.api.keys.KeyIssuer;
import pe.quipu.api.keys.KeyLastUse;
import pe.quipu.api.keys.KeysResource;
import pe.quipu.api.keys.KeysSettings;
import pe.quipu.api.keys.RevokeKeyCommand;
import pe.quipu.api.lifecycle.DevelopmentMode;
import pe.quipu.api.lifecycle.Periodic;
import pe.quipu.api.metering.MeterSync;
import pe.quipu.api.metering.MeteringFeature;
import pe.quipu.api.metering.MeteringSettings;
import pe.quipu.api.metering.MeteringStore;
import pe.quipu.api.metering.UsageMeter;
import pe.quipu.api.metering.UsageResource;
import pe.quipu.api.openapi.OpenApiDocument;
import pe.quipu.api.openapi.OpenApiResource;
import pe.quipu.api.plans.AccountLimitsCache;
import pe.quipu.api.plans.ApplySubscriptionsTask;
import pe.quipu.api.plans.CancelSubscriptionTask;
import pe.quipu.api.plans.PlanTable;
import pe.quipu.api.plans.PlansResource;
import pe.quipu.api.plans.SetPlanTask;
import pe.quipu.api.plans.SubscriptionService;
import pe.quipu.api.plans.Subscriptions;
import pe.quipu.api.privacy.ExportResource;
import pe.quipu.api.privacy.PersonalDataExport;
import pe.quipu.api.ruc.IncludedAnswers;
import pe.quipu.api.ruc.RucAnswers;
import pe.quipu.api.ruc.RucLists;
import pe.quipu.api.ruc.RucRegistry;
import pe.quipu.core.ruc.RegistryChanges;
import pe.quipu.core.ruc.SunatLists;
import pe.quipu.api.ruc.RucResource;
import pe.quipu.api.ruc.RucSearch;
import pe.quipu.api.ruc.RucSearchResource;
import pe.quipu.api.ruc.SamplePadronCommand;
import pe.quipu.api.status.DataFreshness;
import pe.quipu.api.status.FreshnessHealthCheck;
import pe.quipu.api.status.StatusResource;
import pe.quipu.api.training.TrainCommand;
import pe.quipu.api.ubigeo.UbigeoDirectory;
import pe.quipu.api.ubigeo.UbigeoResource;
import pe.quipu.api.webhooks.DeliverCommand;
import pe.quipu.api.webhooks.Webhooks;
import pe.quipu.api.webhooks.WebhooksResource;
import pe.quipu.core.db.QuipuDatabase;
import pe.quipu.core.db.QuipuJdbi;
import pe.quipu.core.db.SchemaMigrations;
import pe.quipu.core.events.EventOutbox;
import pe.quipu.core.fx.BcrpClient;
import pe.quipu.core.fx.ExchangeRate;
import pe.quipu.core.fx.BcrpSettings;
import pe.quipu.core.ubigeo.UbigeoTable;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/** Quipu's API. {@link #run} reads as the wiring diagram of the service. */
public class QuipuApplication extends Application<QuipuConfiguration> {

    private static final Logger LOG = LoggerFactory.getLogger(QuipuApplication.class);

    private final Clock clock;
    private volatile AccountLimitsCache accountLimits;

    public QuipuApplication() {
        this(Clock.systemUTC());
    }

    /** Tests pass a clock they can move. */
    public QuipuApplication(Clock clock) {
        this.clock = clock;
    }

    /** Each account's limits as this instance sees them (set by {@link #run}); tests read it. */
    public AccountLimitsCache accountLimits() {
        return accountLimits;
    }

    public static void main(String[] args) throws Exception {
        new QuipuApplication().run(args);
    }

    @Override
    public String getName() {
        return "quipu";
    }

    @Override
    public void initialize(Bootstrap<QuipuConfiguration> bootstrap) {
        // ${NAME:-default} in config.yml; the ETL reads the file with the same substitutor.
        bootstrap.setConfigurationSourceProvider(new SubstitutingSourceProvider(
                bootstrap.getConfigurationSourceProvider(), new EnvironmentVariableSubstitutor(false)));
        configureJson(bootstrap.getObjectMapper());
        EventOutbox outbox = new EventOutbox(clock, bootstrap.getObjectMapper());
        AuditLog operatorAudit = new AuditLog(clock, bootstrap.getObjectMapper());
        bootstrap.addCommand(new CreateKeyCommand<>(QuipuConfiguration.class, clock, outbox, operatorAudit));
        bootstrap.addCommand(new RevokeKeyCommand<>(QuipuConfiguration.class, clock, outbox, operatorAudit));
        bootstrap.addCommand(new SamplePadronCommand<>(QuipuConfiguration.class, clock));
        bootstrap.addCommand(new GenerateSigningKeyCommand());
        bootstrap.addCommand(new DeliverCommand<>(QuipuConfiguration.class, clock));
        bootstrap.addCommand(new TrainCommand<>(this, clock, outbox, operatorAudit));
        bootstrap.addBundle(new MigrationsBundle<>() {
            @Override
            public DataSourceFactory getDataSourceFactory(QuipuConfiguration configuration) {
                // `db …` commands: attach to (or start) the embedded server for this process's lifetime.
                QuipuDatabase database = QuipuDatabase.open(configuration.getDatabase(), "cli");
                Runtime.getRuntime().addShutdownHook(new Thread(database::close, "quipu-db-release"));
                return DatabaseSupport.dataSourceFactory(database, "cli db", 4);
            }

            @Override
            public String getMigrationsFileName() {
                return SchemaMigrations.CHANGELOG;
            }
        });
    }

    @Override
    public void run(QuipuConfiguration configuration, Environment environment) {
        ObjectMapper json = environment.getObjectMapper();

        // Database: embedded or external, migrated before anything reads it. Registered first so that it
        // is released last, after the pool below has closed.
        QuipuDatabase database = QuipuDatabase.open(configuration.getDatabase(), "api");
        environment.lifecycle().manage(new Managed() {
            @Override
            public void stop() {
                database.close();
            }
        });
        SchemaMigrations.apply(database);
        DataSourceFactory dataSource = DatabaseSupport.dataSourceFactory(database, "api",
                configuration.getDatabase().maxConnections());
        // JdbiFactory also registers the "database" health check, running the pool's validation query.
        Jdbi jdbi = QuipuJdbi.configure(new JdbiFactory().build(environment, dataSource, "database"));
        // Changeset 012's column, computed in Java: before anything looks an account up by its email.
        EmailIdentityBackfill.run(jdbi);
        // One LISTEN connection for every table whose changes reach this instance's in-memory copies.
        NotificationListener notifications = new NotificationListener(database);

        // Errors: Problem Details everywhere, from Jersey and from Jetty.
        environment.jersey().register(new ProblemExceptionMapper());
        UnreadBodyFilter.install(environment);
        ProblemErrorHandler.install(environment, json);
        // The request log hides secret-named query values (the server is built after run, with this layout).
        RedactingRequestLogLayout.installOn(configuration.getServerFactory());
        // Request bodies with Content-Encoding: decoded by Quipu as they are read, within each route's limit.
        environment.jersey().register(new RequestContentEncoding(
                environment.metrics().counter(MetricRegistry.name(RequestContentEncoding.class, "inflated-bytes"))));
        environment.lifecycle().addEventListener(new LifeCycle.Listener() {
            @Override
            public void lifeCycleStarting(LifeCycle server) {
                if (server instanceof Server jetty) {
                    RequestContentEncoding.disableJettyInflation(jetty);
                }
            }
        });

        // Credentials: API keys (data endpoints, by scope) and sessions' access JWTs (account endpoints), from the
        // Authorization header only; one in the query string is refused on every route.
        environment.jersey().register(new CredentialPlacement());
        // Keys note their last use in memory; it is written in batches (and once more on stop).
        KeysSettings keys = configuration.getKeys();
        KeyLastUse keyLastUse = new KeyLastUse(jdbi, clock);
        Duration lastUseFlush = keys.getLastUsedFlushInterval().toJavaDuration();
        environment.lifecycle().manage(
                Periodic.every("quipu-key-last-use", lastUseFlush, lastUseFlush, keyLastUse::flush).alsoOnStop());
        ApiKeyAuthenticator apiKeys = new ApiKeyAuthenticator(jdbi, clock, keyLastUse);
        KeyChangeListener.register(notifications, apiKeys);
        AuthSettings auth = configuration.getAuth();
        TokenDenylist denylist = new TokenDenylist(jdbi, clock);
        notifications.on(TokenDenylist.CHANNEL, denylist::onNotification, denylist::reload);
        environment.metrics().registerGauge(MetricRegistry.name(TokenDenylist.class, "rows-read"), denylist::rowsRead);
        environment.metrics().registerGauge(MetricRegistry.name(TokenDenylist.class, "entries"), denylist::size);
        AccessTokens accessTokens = new AccessTokens(
                SigningKey.load(auth.getSigningKeyFile(), auth.getDevelopmentSigningKeyFile(), configuration.isProduction()),
                auth.getIssuer(), auth.getAccessTokenLifetime().toJavaDuration(), clock, denylist);
        environment.jersey().register(new AuthDynamicFeature(
                new BearerHeaderAuthFilter.Builder<QuipuPrincipal>()
                        .setAuthenticator(new BearerAuthenticator(
                                credentials -> credentials.startsWith(ApiKeySecret.PREFIX),
                                apiKeys::authenticate, accessTokens::verify))
                        .setPrefix("Bearer")
                        .setRealm("quipu")
                        .setUnauthorizedHandler(new ProblemUnauthorizedHandler())
                        .buildAuthFilter()));
        environment.jersey().register(new PolymorphicAuthValueFactoryProvider.Binder<>(
                Set.of(QuipuPrincipal.class, ApiKeyPrincipal.class, SessionPrincipal.class)));
        environment.jersey().register(new ScopeFeature());
        AuditLog audit = new AuditLog(clock, json);
        AccountDeletion deletion = new AccountDeletion(jdbi, clock, audit, denylist, apiKeys::forget);
        environment.jersey().register(new SessionFeature(deletion::deletedAt));

        // Accounts and sessions.
        JsonBody bodies = new JsonBody(json);
        LoginThrottleSettings throttle = auth.getLoginThrottle();
        AccountService accounts = new AccountService(jdbi, clock, new PasswordHasher(), accessTokens, audit,
                auth.getRefreshTokenLifetime().toJavaDuration(), auth.getAccessTokenLifetime().toJavaDuration(),
                throttle.throttle(clock), throttle.getUsualAddressWindow().toJavaDuration(), denylist,
                auth.getSignupThrottle().throttle("signups from this address", clock));
        environment.jersey().register(new AuthResource(accounts, bodies, auth.getRefreshTokenLifetime().toJavaDuration()));
        // Expired refresh tokens, ended sessions and expired denylist rows are deleted daily.
        SessionCleanup sessionCleanup = new SessionCleanup(jdbi, clock);
        environment.lifecycle().manage(Periodic.every("quipu-session-cleanup", SessionCleanup.FIRST_DELAY,
                SessionCleanup.EVERY, sessionCleanup::runAndLog));
        environment.jersey().register(new JwksResource(accessTokens));
        // The audit log keeps 12 months; older rows are deleted daily.
        AuditRetention retention = new AuditRetention(jdbi, audit);
        environment.lifecycle().manage(Periodic.every("quipu-audit-retention", AuditRetention.FIRST_DELAY,
                AuditRetention.EVERY, retention::pruneAndLog));

        // API keys: the account holder's list, create, rotate, revoke.
        EventOutbox outbox = new EventOutbox(clock, json);
        environment.jersey().register(new KeysResource(new AccountKeys(jdbi, clock, new KeyIssuer(clock, outbox),
                audit, apiKeys, keys.getRotationGrace().toJavaDuration(), keys.getMaxPerAccount()), bodies,
                keys.getOperationThrottle().throttle("key operations for this account", clock)));

        // Plans: each account's limits, cached and kept in step with its subscription by notification.
        PlanTable plans = new PlanTable(configuration.getPlans());
        AccountLimitsCache limits = new AccountLimitsCache(jdbi, plans);
        accountLimits = limits;
        environment.jersey().register(new PlansResource(plans));
        notifications.on(AccountLimitsCache.CHANNEL, limits::onNotification, limits::evictAll);
        // Subscriptions: operator plan changes and cancellations; renewals and due cancellations on a schedule.
        SubscriptionService subscriptions = new SubscriptionService(jdbi, clock, plans, audit, outbox, limits);
        Duration applyInterval = configuration.getSubscriptions().getApplyInterval().toJavaDuration();
        environment.lifecycle().manage(Periodic.every("quipu-subscriptions", applyInterval, applyInterval,
                subscriptions::applyDueChangesAndLog));
        new SetPlanTask(subscriptions, plans, json).addTo(environment.admin());
        new CancelSubscriptionTask(subscriptions, json).addTo(environment.admin());
        new ApplySubscriptionsTask(subscriptions, json).addTo(environment.admin());
        new GrantAdminTask(jdbi, audit, json).addTo(environment.admin());

        // The account holder's profile (a changed alert threshold evicts the account's limits everywhere).
        environment.jersey().register(new MeResource(new Profiles(jdbi, audit, limits,
                auth.getEmailChangeThrottle().throttle("email changes for this account", clock)), deletion, bodies));
        // Accounts deleted 30 days ago or more are purged daily (and by the purge-deleted task).
        AccountPurge purge = new AccountPurge(jdbi, clock);
        environment.lifecycle().manage(Periodic.every("quipu-account-purge", AccountPurge.FIRST_DELAY,
                AccountPurge.EVERY, purge::purgeAndLog));
        new PurgeDeletedTask(purge, json).addTo(environment.admin());

        // Metering: rates and quotas counted in memory, synced with the other instances in batches in the
        // background (docs/decisions.md, Metering). Off, nothing is counted and no limit applies.
        MeteringSettings metering = configuration.getMetering();
        MeteringStore meteringStore = new MeteringStore(jdbi, outbox, clock);
        UsageMeter meter = new UsageMeter(clock, meteringStore);
        if (metering.isEnabled()) {
            environment.lifecycle().manage(new MeterSync(meter, meteringStore, limits, clock,
                    metering.getSyncInterval().toJavaDuration()));
            environment.jersey().register(new MeteringFeature(meter, limits, clock));
            environment.metrics().registerGauge(MetricRegistry.name(UsageMeter.class, "instances"), meter::instances);
            environment.metrics().registerGauge(MetricRegistry.name(UsageMeter.class, "accounts"),
                    meter::trackedAccounts);
        }
        environment.jersey().register(new UsageResource(limits, meter, meteringStore, clock));
        // The account holder's personal-data export (Ley 29733), one per 24 hours, streamed.
        environment.jersey().register(new ExportResource(new PersonalDataExport(jdbi, clock, json, audit,
                configuration.getPrivacy(), plans, limits, meter)));

        // Interactive docs: Swagger UI over /v1/openapi.json, from this origin, under a strict CSP.
        environment.servlets().addServlet("docs", new DocsServlet(DocsAssets.load())).addMapping("/docs/*");
        // The developer dashboard: plain HTML, CSS and JavaScript modules over the public API, from this origin.
        environment.servlets().addServlet("dashboard", DashboardServlet.load()).addMapping("/app/*");

        // Status and data freshness; the status says which environment answers.
        DataFreshness freshness = new DataFreshness(jdbi);
        environment.jersey().register(new StatusResource(freshness, clock, version(), configuration.getEnvironment()));
        // Development (QUIPU_ENV unset) relaxes what production refuses: said at every start, once it serves.
        if (!configuration.isProduction()) {
            String warning = DevelopmentMode.warning(configuration.developmentRelaxations());
            environment.lifecycle().addServerLifecycleListener(server -> LOG.warn(warning));
        }
        environment.healthChecks().register("data-freshness",
                new FreshnessHealthCheck(freshness::read, clock, configuration.getFreshness()));
        // The OpenAPI document (public), read once; the tests hold it to the resources and their answers.
        environment.jersey().register(new OpenApiResource(OpenApiDocument.load()));

        // Webhooks: the endpoints API; the delivery worker unless webhooks.workerEnabled is false here (then
        // `deliver` runs it elsewhere). It wakes on new events and deliveries, and looks every pollInterval.
        Webhooks webhooks = new Webhooks(jdbi, json, clock, configuration.getWebhooks(), configuration.isProduction(),
                limits, outbox, audit, hostResolver());
        environment.jersey().register(new WebhooksResource(webhooks.endpoints(), bodies,
                configuration.getWebhooks().getOperationThrottle().throttle("webhook operations for this account", clock)));
        List<Managed> delivery = configuration.getWebhooks().isWorkerEnabled() ? webhooks.delivery(notifications, environment.metrics())
                : List.of();

        // Ubigeos: seeded from the bundled INEI file when the table is empty, loaded before the connectors open.
        UbigeoDirectory ubigeos = new UbigeoDirectory(jdbi);
        // The ETL's ubigeo job replaces the table and notifies: reload without a restart.
        notifications.on(UbigeoTable.CHANGED_CHANNEL, payload -> ubigeos.reload(), ubigeos::reload);
        // Listening starts before the catalogue is first read, so no replacement in between goes unnoticed.
        environment.lifecycle().manage(notifications);
        environment.lifecycle().manage(denylist);
        environment.lifecycle().manage(ubigeos);
        environment.jersey().register(new UbigeoResource(ubigeos, json));
        delivery.forEach(environment.lifecycle()::manage);

        // RUCs: recent answers are kept in memory, and dropped on every change to the registry, from any writer.
        // Answers that include SUNAT's lists or premises (include=) are dropped on a change to those too.
        ExactCache<String, RucAnswers.Answer> rucCache = RucAnswers.cache(notifications::isListening,
                configuration.getRuc().getAnswerCache().toBytes());
        ExactCache<String, RucAnswers.Answer> includedCache = IncludedAnswers.cache(notifications::isListening,
                configuration.getRuc().getAnswerCache().toBytes() / 4);
        Runnable registryChanged = () -> {
            rucCache.changed();
            includedCache.changed();
        };
        notifications.on(RegistryChanges.CHANNEL, payload -> registryChanged.run(), registryChanged);
        notifications.on(SunatLists.CHANNEL, payload -> includedCache.changed(), includedCache::changed);
        RucRegistry registry = new RucRegistry(jdbi);
        RucAnswers rucAnswers = new RucAnswers(registry, json, rucCache);
        environment.jersey().register(new RucResource(new IncludedAnswers(rucAnswers,
                new RucLists(jdbi, code -> ubigeos.catalogue().find(code)), json, includedCache), json, limits));
        environment.jersey().register(new RucSearchResource(new RucSearch(jdbi), rucAnswers,
                configuration.getSearch().enabled()));

        // Exchange rates: answered from the database, fetched from BCRP on demand, captured on a schedule. Dates
        // before a series starts, and dates BCRP recently said have nothing on or before them, are 404 at once.
        BcrpSettings bcrp = configuration.getBcrp();
        ExactCache<ExchangeRateService.Asked, ExchangeRate> provenRates =
                ExchangeRateService.cache(notifications::isListening);
        notifications.on(ExchangeRateService.CHANGED_CHANNEL, payload -> provenRates.changed(), provenRates::changed);
        ExchangeRateService exchangeRates = new ExchangeRateService(new ExchangeRateStore(jdbi),
                new BcrpClient(bcrp, clock), clock, bcrp.captureInterval(), bcrp.seriesStarts(),
                bcrp.emptyAnswerMemory(), provenRates);
        environment.jersey().register(new TipoCambioResource(exchangeRates, json));
        environment.lifecycle().manage(new RateCapture(exchangeRates, clock, bcrp.captureInterval(),
                bcrp.captureEnabled()));

        // Before the connectors open, the lookups run for a few seconds through the application connector, on
        // loopback, so that the first clients after a start are served at speed (a bean added after the handlers:
        // Jetty starts the connectors last).
        WarmUp warmUp = new WarmUp(configuration.getWarmUp().toJavaDuration(),
                () -> {
                    String secret = ApiKeySecret.generate().reveal();
                    return new WarmUp.Key(secret, apiKeys.admitInMemory(secret, new ApiKeyPrincipal(UUID.randomUUID(),
                            ApiKeyPrincipal.WARM_UP_ACCOUNT, "qk_live_warm", Set.of(Scope.RUC_READ, Scope.UBIGEOS_READ),
                            null)));
                },
                () -> registry.sample(2000));
        environment.metrics().registerGauge(MetricRegistry.name(WarmUp.class, "requests"), warmUp::requests);
        environment.metrics().registerGauge(MetricRegistry.name(WarmUp.class, "failures"), warmUp::failures);
        environment.metrics().registerGauge(MetricRegistry.name(WarmUp.class, "millis"), warmUp::millis);
        environment.lifecycle().addEventListener(new LifeCycle.Listener() {
            @Override
            public void lifeCycleStarting(LifeCycle server) {
                if (server instanceof Server jetty) {
                    jetty.addBean(warmUp.of(jetty));
                }
            }
        });
    }

    /** How new webhook URLs' hosts are resolved; tests resolve names of their own. */
    protected Webhooks.HostResolver hostResolver() {
        return Webhooks.HostResolver.SYSTEM;
    }

    static void configureJson(ObjectMapper json) {
        json.disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);
    }

    static String version() {
        String version = QuipuApplication.class.getPackage().getImplementationVersion();
        return version == null ? "development" : version;
    }
}
