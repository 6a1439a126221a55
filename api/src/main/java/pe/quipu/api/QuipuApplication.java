package pe.quipu.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.dropwizard.configuration.EnvironmentVariableSubstitutor;
import io.dropwizard.configuration.SubstitutingSourceProvider;
import io.dropwizard.core.Application;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.db.DataSourceFactory;
import io.dropwizard.migrations.MigrationsBundle;
import pe.quipu.api.accounts.Accounts;
import pe.quipu.api.accounts.GenerateSigningKeyCommand;
import pe.quipu.api.dashboard.Dashboard;
import pe.quipu.api.docs.Docs;
import pe.quipu.api.fx.ExchangeRates;
import pe.quipu.api.http.HttpEdge;
import pe.quipu.api.http.IdempotencyFeature;
import pe.quipu.api.keys.CreateKeyCommand;
import pe.quipu.api.keys.Keys;
import pe.quipu.api.keys.RevokeKeyCommand;
import pe.quipu.api.metering.Metering;
import pe.quipu.api.openapi.OpenApi;
import pe.quipu.api.operations.Operations;
import pe.quipu.api.operations.Readiness;
import pe.quipu.api.operations.TaskCommand;
import pe.quipu.api.plans.AccountLimitsCache;
import pe.quipu.api.plans.Plans;
import pe.quipu.api.platform.DatabaseSupport;
import pe.quipu.api.platform.DevelopmentMode;
import pe.quipu.api.platform.IdempotentRequests;
import pe.quipu.api.platform.Periodic;
import pe.quipu.api.platform.Platform;
import pe.quipu.api.privacy.Privacy;
import pe.quipu.api.ruc.Rucs;
import pe.quipu.api.ruc.SamplePadronCommand;
import pe.quipu.api.status.Status;
import pe.quipu.api.training.TrainCommand;
import pe.quipu.api.training.WarmUp;
import pe.quipu.api.ubigeo.Ubigeos;
import pe.quipu.api.webhooks.DeliverCommand;
import pe.quipu.api.watchlists.Watchlists;
import pe.quipu.api.webhooks.Webhooks;
import pe.quipu.core.db.QuipuDatabase;
import pe.quipu.core.db.SchemaMigrations;

import java.time.Clock;
import java.time.Duration;

/** Quipu's API. {@link #run} reads as the wiring diagram of the service. */
public class QuipuApplication extends Application<QuipuConfiguration> {

    private final Clock clock;
    private volatile AccountLimitsCache accountLimits;
    /** Set by {@link #main}: this application is the process, and answers SIGTERM itself. */
    private boolean ownsProcess;

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
        QuipuApplication application = new QuipuApplication();
        application.ownsProcess = true;
        application.run(args);
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
        bootstrap.addCommand(new CreateKeyCommand<>(QuipuConfiguration.class, clock));
        bootstrap.addCommand(new RevokeKeyCommand<>(QuipuConfiguration.class, clock));
        bootstrap.addCommand(new SamplePadronCommand<>(QuipuConfiguration.class, clock));
        bootstrap.addCommand(new GenerateSigningKeyCommand());
        bootstrap.addCommand(new DeliverCommand<>(QuipuConfiguration.class, clock));
        bootstrap.addCommand(new TrainCommand<>(this, clock));
        bootstrap.addCommand(new TaskCommand<>(QuipuConfiguration.class));
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

    /**
     * The features in lifecycle order, each assembling itself on the platform. What a feature manages starts after
     * the platform's own parts (the database, its pool, the notification listener) and in this order, and stops in
     * the reverse order.
     */
    @Override
    public void run(QuipuConfiguration configuration, Environment environment) {
        Platform platform = Platform.forServer(environment, configuration.getDatabase(), clock);
        if (!configuration.isProduction()) {
            // QUIPU_ENV unset means development, which relaxes what production refuses: said at every start.
            DevelopmentMode.announce(environment, configuration.developmentRelaxations());
        }
        HttpEdge.install(environment, configuration.getServerFactory(), configuration.isJsonLogs());
        // POSTs that create or send something replay their first answer to a retry with the same Idempotency-Key.
        IdempotentRequests idempotent = new IdempotentRequests(platform.jdbi(), platform.clock());
        environment.jersey().register(new IdempotencyFeature(idempotent));
        platform.manage(Periodic.every("quipu-idempotency-keys", Duration.ofMinutes(1), Duration.ofHours(1),
                idempotent::prune));
        Readiness readiness = Operations.serve(platform, environment, configuration.getServerFactory(), configuration.getAdminTasks(),
                configuration.getShutdown(), configuration.isProduction(), ownsProcess,
                configuration.isInstrumentRequests());

        Plans plans = new Plans(platform, configuration.getPlans())
                .serving(environment, configuration.getSubscriptions());
        accountLimits = plans.limits();
        Keys keys = new Keys(platform, environment, configuration.getKeys());
        Accounts.serve(platform, environment, configuration.getAuth(), configuration.isProduction(),
                keys.authenticator(), plans.limits());
        Metering metering = new Metering(platform, environment, configuration.getMetering(), plans.limits());
        Privacy.serve(platform, environment, configuration.getPrivacy(), plans, metering.meter());
        new Webhooks(platform, configuration.getWebhooks(), configuration.isProduction(), plans.limits(),
                hostResolver()).serving(environment);

        Ubigeos ubigeos = new Ubigeos(platform, environment);
        Rucs rucs = new Rucs(platform, environment, configuration.getRuc(), configuration.getSearch(),
                configuration.getChanges(), plans.limits(), ubigeos::find, keys.authenticator()::authenticate,
                metering.feature());
        Watchlists.serve(platform, environment, plans.limits(), configuration.getChanges());
        ExchangeRates.serve(platform, environment, configuration.getBcrp(), configuration.getSunatFx());
        Status.serve(platform, environment, configuration.getFreshness(), version(), configuration.getEnvironment());
        OpenApi.serve(environment);
        Docs.serve(environment);
        Dashboard.serve(environment);

        // The lookups run through the application connector until the JIT has settled: beside the clients, /readyz
        // 503 meanwhile, or before the port opens.
        WarmUp.install(environment, configuration.getWarmUp().toJavaDuration(), configuration.isWarmUpHoldsPort(),
                keys.authenticator(), () -> rucs.sample(2000), readiness.warmingUp());
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
