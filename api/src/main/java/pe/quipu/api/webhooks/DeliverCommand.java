package pe.quipu.api.webhooks;

import io.dropwizard.core.Configuration;
import io.dropwizard.core.cli.ConfiguredCommand;
import io.dropwizard.core.setup.Bootstrap;
import net.sourceforge.argparse4j.inf.Namespace;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import pe.quipu.api.plans.PlanSettings;
import pe.quipu.api.plans.Plans;
import pe.quipu.api.platform.DevelopmentMode;
import pe.quipu.api.platform.Platform;
import pe.quipu.api.platform.Termination;
import pe.quipu.core.db.DatabaseSettings;

import java.time.Clock;
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
        Platform platform = Platform.forWorker(configuration.getDatabase(), clock, bootstrap.getObjectMapper(),
                Math.max(4, configuration.getDatabase().maxConnections() / 4));
        CountDownLatch stopped = new CountDownLatch(1);
        try {
            Plans plans = new Plans(platform, configuration.getPlans());
            new Webhooks(platform, configuration.getWebhooks(), configuration.isProduction(), plans.limits(),
                    Webhooks.HostResolver.SYSTEM).delivering();
            platform.start();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                platform.close();
                stopped.countDown();
            }, "quipu-deliver-stop"));
            // SIGTERM: the same stop, then exit 0 (contract §13).
            Termination.onSigterm("delivery worker", () -> {
                platform.close();
                stopped.countDown();
            });
            System.err.println("Delivering webhooks; stop with Ctrl-C or SIGTERM.");
            stopped.await();
        } catch (Exception | Error e) {
            platform.close();
            throw e;
        }
    }
}
