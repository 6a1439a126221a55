package pe.quipu.api.training;

import io.dropwizard.core.Application;
import io.dropwizard.core.Configuration;
import io.dropwizard.core.cli.ServerCommand;
import io.dropwizard.core.server.DefaultServerFactory;
import io.dropwizard.core.server.ServerFactory;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.jetty.ConnectorFactory;
import io.dropwizard.jetty.HttpConnectorFactory;
import io.dropwizard.lifecycle.ServerLifecycleListener;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;
import org.eclipse.jetty.server.Server;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import pe.quipu.api.operations.AdminSettings;
import pe.quipu.api.operations.AdminToken;
import pe.quipu.api.platform.OperatorCommand;
import pe.quipu.api.platform.Platform;
import pe.quipu.api.plans.PlanSettings;
import pe.quipu.core.fx.BcrpSettings;
import pe.quipu.core.fx.SunatFxSettings;
import pe.quipu.core.io.FileTrees;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code train config.yml}: a training run for the JVM's ahead-of-time cache ({@code ./quipu} runs it with
 * {@code -XX:AOTCacheOutput}, docs/aot-cache.md). It starts the real API in this process, as {@code server} does,
 * on a throwaway embedded PostgreSQL in a temporary folder and on free loopback ports, loads the bundled padrón
 * sample and two weeks of rates, creates an account and a key with every read scope (lifting its limits through
 * the set-plan task), and sends real requests at itself from several clients for a while, checking every answer.
 * Then it stops the server, deletes the folder and returns, so that the JVM exits normally and writes the cache.
 *
 * <p>Nothing reaches beyond the machine: BCRP's and SUNAT's captures are off and their addresses are a closed local
 * port, so that an unexpected fetch fails instead of going out. The configured database is never touched. Any answer other than the
 * one expected fails the run (an exception, which makes the JVM exit 1).
 */
public final class TrainCommand<C extends Configuration & TrainCommand.Configured> extends ServerCommand<C> {

    private static final Logger LOG = LoggerFactory.getLogger(TrainCommand.class);
    /** Dropwizard's default prefix for configuration values given as system properties. */
    private static final String OVERRIDE_PREFIX = "dw.";
    /** Nothing listens there (the discard port, closed on any sane host): a BCRP fetch fails at once. */
    static final String CLOSED_BCRP_URL = "http://127.0.0.1:9/estadisticas/series/api";
    /** The same for SUNAT. */
    static final String CLOSED_SUNAT_URL = "http://127.0.0.1:9";

    /** What the training needs of the configuration. */
    public interface Configured extends OperatorCommand.DatabaseConfigured {
        BcrpSettings getBcrp();

        SunatFxSettings getSunatFx();

        Map<String, PlanSettings> getPlans();

        AdminSettings getAdminTasks();
    }

    private final Clock clock;
    private Path workDirectory;

    public TrainCommand(Application<C> application, Clock clock) {
        super(application, "train", "Run the API in-process against a throwaway database and load it with requests"
                + " (the training run of the JVM's ahead-of-time cache)");
        this.clock = clock;
    }

    @Override
    public void configure(Subparser subparser) {
        super.configure(subparser);
        subparser.addArgument("--seconds").type(Integer.class).setDefault(TrainingLoad.DEFAULT_SECONDS)
                .help("send requests for at least this long (default " + TrainingLoad.DEFAULT_SECONDS + ")");
        subparser.addArgument("--requests").type(Integer.class).setDefault(TrainingLoad.DEFAULT_REQUESTS)
                .help("and at least this many (default " + TrainingLoad.DEFAULT_REQUESTS + "), within "
                        + TrainingLoad.LONGEST.toSeconds() + " s");
        subparser.addArgument("--clients").type(Integer.class).setDefault(TrainingLoad.DEFAULT_CLIENTS)
                .help("concurrent clients (default " + TrainingLoad.DEFAULT_CLIENTS + ")");
        subparser.addArgument("--work-dir").help("a folder that does not exist yet, for the throwaway database and"
                + " signing key (default: a new temporary folder); deleted at the end");
    }

    /**
     * Isolates the run before config.yml is read: a development instance on an embedded server in a temporary folder,
     * with a signing key of its own there, and BCRP out of reach. Ports are set once the file is read.
     */
    @Override
    public void run(Bootstrap<?> bootstrap, Namespace namespace) throws Exception {
        String given = namespace.getString("work_dir");
        workDirectory = given == null ? Files.createTempDirectory("quipu-train")
                : Files.createDirectory(Path.of(given)).toAbsolutePath();
        Map<String, String> overrides = Map.ofEntries(
                Map.entry("environment", "development"),
                Map.entry("database.url", ""),
                Map.entry("database.embeddedDataDirectory", workDirectory.resolve("postgres").toString()),
                Map.entry("database.embeddedPort", "0"),
                Map.entry("database.embeddedServerSettings", ""),
                Map.entry("auth.signingKeyFile", ""),
                Map.entry("auth.developmentSigningKeyFile", workDirectory.resolve("jwt-signing-key.json").toString()),
                Map.entry("adminTasks.tokenFile", ""),
                Map.entry("adminTasks.developmentTokenFile", workDirectory.resolve("admin-token").toString()),
                Map.entry("bcrp.captureEnabled", "false"),
                Map.entry("bcrp.baseUrl", CLOSED_BCRP_URL),
                Map.entry("sunatFx.captureEnabled", "false"),
                Map.entry("sunatFx.baseUrl", CLOSED_SUNAT_URL));
        overrides.forEach((name, value) -> System.setProperty(OVERRIDE_PREFIX + name, value));
        try {
            super.run(bootstrap, namespace);
        } finally {
            overrides.keySet().forEach(name -> System.clearProperty(OVERRIDE_PREFIX + name));
            deleteRecursively(workDirectory);
        }
    }

    @Override
    protected void run(Bootstrap<C> bootstrap, Namespace namespace, C configuration) throws Exception {
        // The system properties above are read by Dropwizard's default configuration factory; refuse to go on if
        // another factory ignored them, rather than train against the configured database or BCRP.
        if (configuration.getDatabase().external()
                || !configuration.getDatabase().embeddedDataDirectory().startsWith(workDirectory)
                || configuration.getBcrp().captureEnabled()
                || !configuration.getBcrp().baseUrl().equals(CLOSED_BCRP_URL)
                || configuration.getSunatFx().captureEnabled()
                || !configuration.getSunatFx().baseUrl().equals(CLOSED_SUNAT_URL)) {
            throw new IllegalStateException("train: the configuration could not be isolated (a database of its own,"
                    + " BCRP and SUNAT off); nothing was started");
        }
        onLoopbackFreePorts(configuration.getServerFactory());
        super.run(bootstrap, namespace, configuration);
    }

    @Override
    protected void run(Environment environment, Namespace namespace, C configuration) throws Exception {
        AtomicReference<Started> started = new AtomicReference<>();
        environment.lifecycle().addServerLifecycleListener(new ServerLifecycleListener() {
            @Override
            public void serverStarted(Server server) {
                started.set(new Started(server, getLocalPort(server), getAdminPort(server)));
            }
        });
        long t0 = System.nanoTime();
        super.run(environment, namespace, configuration);
        Started server = started.get();
        try {
            if (server == null) {
                throw new IllegalStateException("train: the server did not start");
            }
            LOG.info("train: the API started in {} ms on 127.0.0.1:{} (admin {})",
                    Duration.ofNanos(System.nanoTime() - t0).toMillis(), server.port(), server.adminPort());
            TrainingData data;
            String key;
            try (Platform platform = Platform.forOperator("train", configuration.getDatabase(), clock,
                    environment.getObjectMapper())) {
                data = new TrainingData(platform);
                key = data.load();
            }
            String adminToken = AdminToken.read(Path.of(configuration.getAdminTasks().effectiveTokenFile()),
                    "adminTasks.developmentTokenFile");
            TrainingLoad load = new TrainingLoad(server.port(), server.adminPort(), adminToken, key,
                    TrainingData.largestBatchPlan(configuration.getPlans()), environment.getObjectMapper(),
                    data.today());
            TrainingLoad.Summary summary = load.run(Duration.ofSeconds(namespace.getInt("seconds")),
                    namespace.getInt("requests"), namespace.getInt("clients"));
            LOG.info("train: {}", summary);
        } finally {
            if (server != null) {
                server.jetty().stop();
            }
        }
        LOG.info("train: done in {} s", Duration.ofNanos(System.nanoTime() - t0).toSeconds());
    }

    /** The started server and the ports the system gave its connectors. */
    private record Started(Server jetty, int port, int adminPort) {
    }

    /** Every HTTP connector on 127.0.0.1 and a port the system picks: a running instance is never in the way. */
    private static void onLoopbackFreePorts(ServerFactory serverFactory) {
        if (!(serverFactory instanceof DefaultServerFactory server)) {
            throw new IllegalStateException("train: needs the default server (application and admin connectors), not "
                    + serverFactory.getClass().getSimpleName());
        }
        List<ConnectorFactory> connectors = new ArrayList<>(server.getApplicationConnectors());
        connectors.addAll(server.getAdminConnectors());
        for (ConnectorFactory connector : connectors) {
            if (!(connector instanceof HttpConnectorFactory http)) {
                throw new IllegalStateException("train: a connector of type " + connector.getClass().getSimpleName()
                        + " cannot be moved to a free port");
            }
            http.setBindHost("127.0.0.1");
            http.setPort(0);
        }
    }

    /** Best effort: a folder left behind in the temporary directory must not hide why a run failed. */
    private static void deleteRecursively(Path directory) {
        if (directory == null) {
            return;
        }
        try {
            FileTrees.delete(directory);
        } catch (IOException e) {
            LOG.warn("train: could not delete {}: {}", directory, e.toString());
        }
    }
}
