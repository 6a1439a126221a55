package pe.quipu.api.webhooks;

import com.codahale.metrics.MetricRegistry;
import io.dropwizard.core.Configuration;
import io.dropwizard.core.cli.ConfiguredCommand;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.db.ManagedDataSource;
import io.dropwizard.lifecycle.Managed;
import net.sourceforge.argparse4j.inf.Namespace;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import pe.quipu.api.audit.AuditLog;
import pe.quipu.api.db.DatabaseSupport;
import pe.quipu.api.db.NotificationListener;
import pe.quipu.api.lifecycle.DevelopmentMode;
import pe.quipu.api.plans.AccountLimitsCache;
import pe.quipu.api.plans.PlanSettings;
import pe.quipu.api.plans.PlanTable;
import pe.quipu.core.db.DatabaseSettings;
import pe.quipu.core.db.QuipuDatabase;
import pe.quipu.core.db.QuipuJdbi;
import pe.quipu.core.db.SchemaMigrations;
import pe.quipu.core.events.EventOutbox;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * {@code deliver config.yml}: the webhook delivery worker alone, without the HTTP API, so that operators can scale
 * deliveries apart from lookups (pair it with {@code webhooks.workerEnabled: false} on the API instances, or not:
 * any number of workers share the work). Runs until SIGTERM or Ctrl-C, then stops as an API instance does.
 */
public final class DeliverCommand<C extends Configuration & DeliverCommand.Configured> extends ConfiguredCommand<C> {

    private static final Logger LOG = LoggerFactory.getLogger(DeliverCommand.class);

    /** What the worker needs of the configuration. */
    public interface Configured {
        DatabaseSettings getDatabase();

        WebhooksSettings getWebhooks();

        Map<String, PlanSettings> getPlans();

        boolean isProduction();

        /** What the configuration allows that production refuses (none in production). */
        List<String> developmentRelaxations();
    }

    private final Class<C> configurationClass;
    private final Clock clock;

    public DeliverCommand(Class<C> configurationClass, Clock clock) {
        super("deliver", "Run the webhook delivery worker alone, without the HTTP API");
        this.configurationClass = configurationClass;
        this.clock = clock;
    }

    @Override
    protected Class<C> getConfigurationClass() {
        return configurationClass;
    }

    @Override
    protected void run(Bootstrap<C> bootstrap, Namespace namespace, C configuration) throws Exception {
        if (!configuration.isProduction()) {
            LOG.warn(DevelopmentMode.warning(configuration.developmentRelaxations()));
        }
        QuipuDatabase database = QuipuDatabase.open(configuration.getDatabase(), "deliver");
        List<Managed> started = new ArrayList<>();
        CountDownLatch stopped = new CountDownLatch(1);
        try {
            SchemaMigrations.apply(database);
            MetricRegistry metrics = new MetricRegistry();
            ManagedDataSource dataSource = DatabaseSupport.dataSourceFactory(database, "deliver",
                            Math.max(4, configuration.getDatabase().maxConnections() / 4))
                    .build(metrics, "deliver");
            Jdbi jdbi = QuipuJdbi.configure(Jdbi.create(dataSource));
            NotificationListener notifications = new NotificationListener(database);
            AccountLimitsCache limits = new AccountLimitsCache(jdbi, new PlanTable(configuration.getPlans()));
            notifications.on(AccountLimitsCache.CHANNEL, limits::onNotification, limits::evictAll);
            AuditLog audit = new AuditLog(clock, bootstrap.getObjectMapper());
            Webhooks webhooks = new Webhooks(jdbi, bootstrap.getObjectMapper(), clock, configuration.getWebhooks(),
                    configuration.isProduction(), limits, new EventOutbox(clock, bootstrap.getObjectMapper()), audit,
                    Webhooks.HostResolver.SYSTEM);
            List<Managed> parts = new ArrayList<>();
            parts.add(dataSource);
            List<Managed> delivery = webhooks.delivery(notifications, metrics);
            parts.add(notifications);
            parts.addAll(delivery);
            for (Managed part : parts) {
                part.start();
                started.addFirst(part);
            }
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                stopAll(started);
                database.close();
                stopped.countDown();
            }, "quipu-deliver-stop"));
            System.err.println("Delivering webhooks; stop with Ctrl-C or SIGTERM.");
            stopped.await();
        } catch (Exception | Error e) {
            stopAll(started);
            database.close();
            throw e;
        }
    }

    private static synchronized void stopAll(List<Managed> started) {
        for (Managed part : List.copyOf(started)) {
            try {
                part.stop();
            } catch (Exception e) {
                LOG.warn("Stopping {} failed: {}", part.getClass().getSimpleName(), e.toString());
            }
            started.remove(part);
        }
    }
}
