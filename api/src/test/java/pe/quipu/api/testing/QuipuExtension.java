package pe.quipu.api.testing;

import io.dropwizard.core.setup.Environment;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.DropwizardTestSupport;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import pe.quipu.api.QuipuApplication;
import pe.quipu.api.QuipuConfiguration;
import pe.quipu.api.webhooks.Webhooks;
import pe.quipu.core.testing.BcrpStub;
import pe.quipu.core.testing.MutableClock;
import pe.quipu.core.testing.SunatStub;
import pe.quipu.core.testing.TestDatabase;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * A running Quipu for a test class: the real application over real HTTP, on the repository's config.yml, over the
 * test JVM's embedded PostgreSQL ({@link TestDatabase}), with BCRP and SUNAT stand-ins and a clock that is back at
 * {@link #START} before every test. Consecutive classes with the same settings run on one application (see
 * {@link #beforeAll}); test classes keep to their own accounts and data, so their order never matters.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final QuipuExtension quipu = new QuipuExtension();
 * }</pre>
 */
public final class QuipuExtension extends QuipuClient implements BeforeAllCallback, AfterAllCallback,
        BeforeEachCallback {

    /** The instant the clock starts at, and is set back to before each test: a Wednesday, 10:00 in Lima. */
    public static final Instant START = Instant.parse("2026-10-07T15:00:00Z");

    /**
     * Every test logs in from 127.0.0.1 while the clock mostly stands still, so the per-address login limit would be
     * one budget for a whole class: it is lifted (LoginThrottleTest covers it). The per-email limit stays as
     * configured; each test uses its own emails.
     */
    private static final String UNTHROTTLED_ADDRESS = "1000000000";

    /** One of each per test JVM, as the application they are wired into may serve several classes. */
    private static final MutableClock CLOCK = new MutableClock(START);
    private static final BcrpStub BCRP = BcrpStub.start();
    private static final SunatStub SUNAT = SunatStub.start();
    private static final TestDns DNS = new TestDns();
    /** The application the last class ran on, kept for the next class with the same settings. */
    private static Shared shared;

    /** A running application and the settings it was started with; {@link #close} ends the JVM's hold on it. */
    private record Shared(Map<String, String> settings, DropwizardAppExtension<QuipuConfiguration> app)
            implements ExtensionContext.Store.CloseableResource {
        @Override
        public void close() {
            synchronized (QuipuExtension.class) {
                if (shared == this) {
                    shared = null;
                }
            }
            app.after();
        }
    }

    public final MutableClock clock = CLOCK;
    public final BcrpStub bcrp = BCRP;
    public final SunatStub sunat = SUNAT;
    public final TestDatabase database = TestDatabase.get();
    public final TestAccounts accounts = new TestAccounts(this, database, clock);
    /** The names new webhook URLs resolve to, in every instance of this extension. */
    public final TestDns dns = DNS;
    private final Map<String, String> overrides = new LinkedHashMap<>();
    private final List<Object> components = new ArrayList<>();
    private boolean isolated;
    private DropwizardAppExtension<QuipuConfiguration> app;
    /** The classes under way (a test class and its @Nested ones), so that the second instance ends with the last. */
    private int classes;
    private Instance peer;

    /** One more configuration value, on top of the tests' own (see {@link #settings}). */
    public QuipuExtension with(String key, String value) {
        overrides.put(key, value);
        return this;
    }

    /** A Jersey component the application registers besides its own (a resource that fails on purpose). */
    public QuipuExtension registering(Object component) {
        components.add(component);
        return this;
    }

    /**
     * An application of this class's own, started for it and stopped after it, for a class that looks at what a start
     * does (its log, its first reads). Otherwise consecutive classes with the same settings share one application.
     */
    public QuipuExtension isolated() {
        isolated = true;
        return this;
    }

    /**
     * Called again for each @Nested class: one application serves the class and its nested classes, as
     * DropwizardAppExtension counts the calls and starts (and stops) it once. Classes with the same settings and no
     * component of their own run one after another on one application, which the JVM holds until its tests end or
     * a class needs other settings: each finds the stub BCRP, SUNAT and DNS as new (each class leaves them so) and the
     * clock at {@link #START}.
     */
    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        classes++;
        if (app == null) {
            Map<String, String> settings = settings(database.dataDirectory().toString(), "");
            settings.putAll(overrides);
            app = isolated || !components.isEmpty() ? new DropwizardAppExtension<>(support(settings, components))
                    : sharedApplication(settings, context);
        }
        start(app);
    }

    private DropwizardAppExtension<QuipuConfiguration> sharedApplication(Map<String, String> settings,
                                                                         ExtensionContext context) throws Exception {
        synchronized (QuipuExtension.class) {
            if (shared != null && shared.settings().equals(settings)) {
                return shared.app();
            }
            if (shared != null) {
                context.getRoot().getStore(ExtensionContext.Namespace.GLOBAL).remove(shared);
                shared.close();
            }
            DropwizardAppExtension<QuipuConfiguration> started = new DropwizardAppExtension<>(support(settings,
                    List.of()));
            // The JVM's own hold, released when another class needs other settings or when the tests end.
            start(started);
            shared = new Shared(settings, started);
            context.getRoot().getStore(ExtensionContext.Namespace.GLOBAL).put(shared, shared);
            return started;
        }
    }

    private static void start(DropwizardAppExtension<QuipuConfiguration> app) throws Exception {
        try {
            app.before();
        } catch (Exception | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** The stub BCRP, SUNAT and DNS are as new for the next class, which may set them up before its beforeAll. */
    @Override
    public void afterAll(ExtensionContext context) {
        if (--classes == 0) {
            if (peer != null) {
                peer.stop();
                peer = null;
            }
            BCRP.reset();
            SUNAT.reset();
            DNS.reset();
        }
        app.after();
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        clock.set(START);
    }

    @Override
    protected DropwizardTestSupport<QuipuConfiguration> support() {
        return app.getTestSupport();
    }

    /** The running application's environment (its Jersey resources, for instance). */
    public Environment environment() {
        return app.getEnvironment();
    }

    /** The configuration the application runs with: config.yml and the overrides. */
    public QuipuConfiguration configuration() {
        return app.getConfiguration();
    }

    /** The private key the instances sign access tokens with (a JWK), for tests that forge tokens. */
    public String signingKeyJwk() {
        try {
            return Files.readString(signingKey());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A second instance on the same database (see {@link #startInstance}) with this extension's own settings
     * ({@link #with}), for what must hold across instances: started on first use, stopped with the test class.
     */
    public synchronized Instance peer() {
        if (peer == null) {
            peer = startInstance(overrides);
        }
        return peer;
    }

    /**
     * One more API instance, on its own ports, sharing this one's database (as an external PostgreSQL), clock,
     * signing key and BCRP stand-in, configured with {@code overrides} on top: for what must hold across instances
     * (revocations, limits). The caller stops it.
     */
    public Instance startInstance(Map<String, String> overrides) {
        Map<String, String> settings = settings("", database.database().jdbcUrl());
        settings.putAll(overrides);
        return new Instance(support(settings, List.of()));
    }

    /** Another instance of the API under test (see {@link #startInstance}). */
    public static final class Instance extends QuipuClient {
        private final DropwizardTestSupport<QuipuConfiguration> app;

        private Instance(DropwizardTestSupport<QuipuConfiguration> app) {
            this.app = app;
            try {
                app.before();
            } catch (Exception e) {
                throw new IllegalStateException("could not start another instance", e);
            }
        }

        @Override
        protected DropwizardTestSupport<QuipuConfiguration> support() {
            return app;
        }

        /** Stops this instance as a graceful shutdown does. */
        public void stop() {
            app.after();
        }
    }

    /**
     * The tests' configuration on top of config.yml: the test database (embedded over its data directory, or reached
     * by URL), free ports, the BCRP and SUNAT stand-ins without the scheduled captures, a signing key beside the
     * database, lastUsedAt flushed within a test's patience, no per-address login limit, quiet logs.
     */
    private Map<String, String> settings(String embeddedDataDirectory, String url) {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("database.url", url);
        if (url.isEmpty()) {
            settings.put("database.embeddedDataDirectory", embeddedDataDirectory);
        } else {
            settings.put("database.user", database.database().user());
            settings.put("database.password", database.database().password());
        }
        settings.put("auth.developmentSigningKeyFile", signingKey().toString());
        settings.put("adminTasks.developmentTokenFile", database.folder().resolve("admin-token").toString());
        settings.put("server.applicationConnectors[0].port", "0");
        settings.put("server.adminConnectors[0].port", "0");
        settings.put("bcrp.baseUrl", bcrp.baseUrl());
        settings.put("bcrp.captureEnabled", "false");
        settings.put("sunatFx.baseUrl", sunat.baseUrl());
        settings.put("sunatFx.captureEnabled", "false");
        // Each start would otherwise spend config.yml's warm-up; WarmUpTest turns it on.
        settings.put("warmUp", "0s");
        settings.put("auth.loginThrottle.attemptsPerAddress", UNTHROTTLED_ADDRESS);
        // Every test signs up from 127.0.0.1 and many tests work one account hard: SignupAndKeyThrottleTest sets
        // these low with with(...).
        settings.put("auth.signupThrottle.limit", UNTHROTTLED_ADDRESS);
        settings.put("keys.operationThrottle.limit", UNTHROTTLED_ADDRESS);
        settings.put("webhooks.operationThrottle.limit", UNTHROTTLED_ADDRESS);
        settings.put("keys.lastUsedFlushInterval", "500ms");
        settings.put("logging.level", "WARN");
        // Nothing balances load here: an instance stops without waiting (ProbesTest looks at the drain).
        settings.put("shutdown.drainDelay", "0s");
        return settings;
    }

    private Path signingKey() {
        return database.folder().resolve("jwt-signing-key.json");
    }

    /** An application on this extension's clock; overrides are system properties under a prefix of its own. */
    private DropwizardTestSupport<QuipuConfiguration> support(Map<String, String> settings, List<Object> extra) {
        String prefix = "quipu-test-" + UUID.randomUUID() + ".";
        ConfigOverride[] all = settings.entrySet().stream()
                .map(e -> ConfigOverride.config(prefix, e.getKey(), e.getValue()))
                .toArray(ConfigOverride[]::new);
        return new DropwizardTestSupport<>(QuipuApplication.class, Path.of("..", "config.yml").toString(), prefix,
                all) {
            @Override
            public QuipuApplication newApplication() {
                return new QuipuApplication(clock) {
                    @Override
                    protected Webhooks.HostResolver hostResolver() {
                        return dns;
                    }

                    @Override
                    public void run(QuipuConfiguration configuration, Environment environment) {
                        super.run(configuration, environment);
                        extra.forEach(environment.jersey()::register);
                    }
                };
            }
        };
    }
}
