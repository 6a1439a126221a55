package pe.quipu.api.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.DropwizardTestSupport;
import pe.quipu.api.QuipuApplication;
import pe.quipu.api.QuipuConfiguration;
import pe.quipu.core.db.DatabaseSettings;
import pe.quipu.core.db.QuipuDatabase;
import pe.quipu.core.events.EventOutbox;
import pe.quipu.core.keys.KeyIssuer;
import pe.quipu.core.keys.Scope;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;

/**
 * The Quipu under test, one per test JVM: the real application over real HTTP, on the repository's
 * config.yml, with a real embedded PostgreSQL in a temporary data directory, a BCRP stand-in, and a
 * clock tests can move. Tests keep to their own keys and data, so their order never matters.
 */
public final class TestQuipu {

    /** The instant the clock starts at: a Wednesday, 10:00 in Lima. */
    public static final Instant START = Instant.parse("2026-10-07T15:00:00Z");

    private static TestQuipu instance;

    /**
     * Every test logs in from 127.0.0.1 while the clock mostly stands still, so the per-address login limit would
     * be one budget for the whole test JVM: it is lifted here (LoginThrottleTest covers it). The per-email limit
     * stays as configured; each test uses its own emails.
     */
    private static final String UNTHROTTLED_ADDRESS = "1000000000";

    public final MutableClock clock = new MutableClock(START);
    public final BcrpStub bcrp = BcrpStub.start();
    public final ObjectMapper json = new ObjectMapper().findAndRegisterModules();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final Path dataDirectory;
    private final DropwizardTestSupport<QuipuConfiguration> app;
    private final QuipuDatabase database;

    private TestQuipu() throws Exception {
        dataDirectory = Files.createTempDirectory("quipu-test-").resolve("postgres");
        app = new DropwizardTestSupport<>(QuipuApplication.class, Path.of("..", "config.yml").toString(),
                ConfigOverride.config("database.url", ""),
                ConfigOverride.config("database.embeddedDataDirectory", dataDirectory.toString()),
                ConfigOverride.config("auth.developmentSigningKeyFile",
                        dataDirectory.resolveSibling("jwt-signing-key.json").toString()),
                // lastUsedAt shows up within a test's patience rather than config.yml's 5 s.
                ConfigOverride.config("keys.lastUsedFlushInterval", "500ms"),
                ConfigOverride.config("server.applicationConnectors[0].port", "0"),
                ConfigOverride.config("server.adminConnectors[0].port", "0"),
                ConfigOverride.config("bcrp.baseUrl", bcrp.baseUrl()),
                ConfigOverride.config("bcrp.captureEnabled", "false"),
                ConfigOverride.config("auth.loginThrottle.attemptsPerAddress", UNTHROTTLED_ADDRESS),
                ConfigOverride.config("logging.level", "WARN")) {
            @Override
            public QuipuApplication newApplication() {
                return new QuipuApplication(clock) {
                    @Override
                    public void run(QuipuConfiguration configuration, io.dropwizard.core.setup.Environment environment) {
                        super.run(configuration, environment);
                        environment.jersey().register(new FailingResource());
                    }
                };
            }
        };
        try {
            app.before();
        } catch (Exception | Error e) {
            stopServer(dataDirectory);
            deleteTree(dataDirectory.getParent());
            throw e;
        }
        // A second client of the same embedded server, as an operator command would be.
        database = QuipuDatabase.open(new DatabaseSettings("", "", "", dataDirectory, 0), "test");
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            synchronized (this) {
                if (peer != null) {
                    peer.app.after();
                }
            }
            app.after();
            database.close();
            stopServer(dataDirectory);
            deleteTree(dataDirectory.getParent());
        }, "quipu-test-shutdown"));
    }

    /** The embedded data directory the app under test uses. */
    public Path dataDirectory() {
        return dataDirectory;
    }

    /**
     * At JVM exit Jetty's own shutdown hook stops the app concurrently with this one, so the app may release
     * the embedded server after this hook: wait for the postmaster to end, and stop it if nobody did, before
     * its data directory is deleted (a server whose directory is gone could never be stopped by Quipu).
     */
    private static void stopServer(Path dataDirectory) {
        Path pidFile = dataDirectory.resolve("postmaster.pid");
        try {
            if (!Files.exists(pidFile)) {
                return;
            }
            long pid = Long.parseLong(Files.readAllLines(pidFile).getFirst().strip());
            ProcessHandle.of(pid).ifPresent(postmaster -> {
                try {
                    postmaster.onExit().get(5, java.util.concurrent.TimeUnit.SECONDS);
                } catch (Exception stillRunning) {
                    // SIGINT: PostgreSQL's fast shutdown, which ends the app's last connections too; the JVM is
                    // exiting, and Surefire halts it if its hooks take too long.
                    try {
                        new ProcessBuilder("kill", "-INT", Long.toString(pid)).start().waitFor();
                    } catch (IOException | InterruptedException e) {
                        postmaster.destroy();
                    }
                    postmaster.onExit().orTimeout(15, java.util.concurrent.TimeUnit.SECONDS).join();
                }
            });
        } catch (IOException | RuntimeException e) {
            // A pid file being removed while read: the server is stopping by itself.
        }
    }

    private static void deleteTree(Path root) {
        try (var paths = Files.walk(root)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // a temporary folder; the OS cleans it eventually
        }
    }

    private Peer peer;

    /**
     * A second API instance in this JVM, on its own ports, sharing the first one's database (as an external
     * PostgreSQL), clock, signing key and BCRP stub: for what must hold across instances (revocations, limits).
     * Started on first use and kept for the JVM's life.
     */
    public synchronized Peer peer() {
        if (peer == null) {
            // Overrides are system properties: a prefix of its own keeps them apart from the first instance's.
            peer = new Peer("quipu-peer.", java.util.Map.of());
        }
        return peer;
    }

    /**
     * One more API instance on the same database, configured with {@code overrides} on top of the peer's
     * configuration; the caller stops it ({@link Peer#stop}).
     */
    public Peer startInstance(java.util.Map<String, String> overrides) {
        // Overrides are system properties while an instance runs: a prefix of its own keeps them to this one.
        return new Peer("quipu-instance-" + UUID.randomUUID() + ".", overrides);
    }

    /** Another instance of the API under test; requests go through the same client as the first one's. */
    public final class Peer {
        private final DropwizardTestSupport<QuipuConfiguration> app;

        private Peer(String propertyPrefix, java.util.Map<String, String> overrides) {
            java.util.Map<String, String> settings = new java.util.LinkedHashMap<>();
            settings.put("database.url", database.jdbcUrl());
            settings.put("database.user", database.user());
            settings.put("database.password", database.password());
            settings.put("auth.developmentSigningKeyFile", dataDirectory.resolveSibling("jwt-signing-key.json").toString());
            settings.put("server.applicationConnectors[0].port", "0");
            settings.put("server.adminConnectors[0].port", "0");
            settings.put("bcrp.baseUrl", bcrp.baseUrl());
            settings.put("bcrp.captureEnabled", "false");
            settings.put("auth.loginThrottle.attemptsPerAddress", UNTHROTTLED_ADDRESS);
            settings.put("keys.lastUsedFlushInterval", "500ms");
            settings.put("logging.level", "WARN");
            settings.putAll(overrides);
            ConfigOverride[] all = settings.entrySet().stream()
                    .map(e -> ConfigOverride.config(propertyPrefix, e.getKey(), e.getValue()))
                    .toArray(ConfigOverride[]::new);
            app = new DropwizardTestSupport<>(QuipuApplication.class, Path.of("..", "config.yml").toString(),
                    propertyPrefix, all) {
                @Override
                public QuipuApplication newApplication() {
                    return new QuipuApplication(clock);
                }
            };
            try {
                app.before();
            } catch (Exception e) {
                throw new IllegalStateException("could not start another instance", e);
            }
        }

        /** Stops this instance as a graceful shutdown does (not the {@link #peer()}, kept for the JVM's life). */
        public void stop() {
            app.after();
        }

        public URI uri(String pathAndQuery) {
            return URI.create("http://127.0.0.1:" + app.getLocalPort() + pathAndQuery);
        }

        public URI adminUri(String path) {
            return URI.create("http://127.0.0.1:" + app.getAdminPort() + path);
        }

        public HttpResponse<String> get(String pathAndQuery, String key, String... headers) {
            return send(HttpRequest.newBuilder(uri(pathAndQuery)).GET(), key, headers);
        }

        public HttpResponse<String> post(String path, String key, String contentType, String body, String... headers) {
            HttpRequest.Builder builder = HttpRequest.newBuilder(uri(path)).POST(HttpRequest.BodyPublishers.ofString(body));
            if (contentType != null) {
                builder.header("Content-Type", contentType);
            }
            return send(builder, key, headers);
        }

        public HttpResponse<String> request(String method, String pathAndQuery, String key, String... headers) {
            return send(HttpRequest.newBuilder(uri(pathAndQuery)).method(method, HttpRequest.BodyPublishers.noBody()),
                    key, headers);
        }
    }

    public static synchronized TestQuipu get() {
        if (instance == null) {
            try {
                instance = new TestQuipu();
            } catch (Exception e) {
                throw new IllegalStateException("could not start Quipu for the tests", e);
            }
        }
        return instance;
    }

    public URI uri(String pathAndQuery) {
        return URI.create("http://127.0.0.1:" + app.getLocalPort() + pathAndQuery);
    }

    public URI adminUri(String path) {
        return URI.create("http://127.0.0.1:" + app.getAdminPort() + path);
    }

    public QuipuApplication application() {
        return app.getApplication();
    }

    /** The configuration the app under test runs with (config.yml and the overrides above). */
    public QuipuConfiguration configuration() {
        return app.getConfiguration();
    }

    /** A connection to Quipu's database (autocommit on). */
    public Connection connection() throws SQLException {
        Properties props = new Properties();
        props.setProperty("user", database.user());
        props.setProperty("password", database.password());
        props.setProperty("ApplicationName", QuipuDatabase.applicationName("test"));
        return DriverManager.getConnection(database.jdbcUrl(), props);
    }

    /** The monthly quota and per-minute rate of {@link #newKey}'s accounts: more than any test uses. */
    public static final long UNBOUNDED_QUOTA = 1_000_000_000_000L;
    public static final int UNBOUNDED_RPM = 1_000_000_000;

    /**
     * Creates a fresh account with a key carrying these scopes and returns the key's secret. The account is on the
     * enterprise plan (batch cap 500) with a quota and rate no test reaches, so that tests of other things can make
     * any number of requests; metering tests use {@link #newKeyOnPlan}.
     */
    public String newKey(Scope... scopes) {
        return newKey("enterprise", UNBOUNDED_QUOTA, UNBOUNDED_RPM, scopes);
    }

    /** A fresh account on this plan, with the plan's own numbers, and a key with these scopes. */
    public String newKeyOnPlan(String plan, Scope... scopes) {
        return newKey(plan, null, null, scopes);
    }

    /** A fresh account on the free plan (contract §2: 1,000 units a month, 60 requests a minute, batches of 10). */
    public String newFreeKey(Scope... scopes) {
        return newKeyOnPlan("free", scopes);
    }

    /**
     * A fresh account on this plan with these overrides of its numbers (null: the plan's), as the operator's
     * set-plan task sets them, and a key with these scopes.
     */
    public String newKey(String plan, Long monthlyQuota, Integer rateLimitRpm, Scope... scopes) {
        try (Connection c = connection()) {
            c.setAutoCommit(false);
            KeyIssuer issuer = new KeyIssuer(clock, new EventOutbox(clock, json));
            UUID account = issuer.accountFor(c, "test-" + UUID.randomUUID() + "@quipu.test");
            String secret = issuer.issue(c, account, "test", scopeSet(scopes)).secret().reveal();
            try (java.sql.PreparedStatement update = c.prepareStatement(
                    "update subscriptions set plan = ?, monthly_quota = ?, rate_limit_rpm = ?"
                            + " where account_id = ? and ended_at is null")) {
                update.setString(1, plan);
                update.setObject(2, monthlyQuota, java.sql.Types.BIGINT);
                update.setObject(3, rateLimitRpm, java.sql.Types.INTEGER);
                update.setObject(4, account);
                update.executeUpdate();
            }
            c.commit();
            return secret;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Issues one more key, with these scopes, to an existing account (e.g. a session's). */
    public String issueKey(UUID accountId, Scope... scopes) {
        try (Connection c = connection()) {
            c.setAutoCommit(false);
            KeyIssuer issuer = new KeyIssuer(clock, new EventOutbox(clock, json));
            String secret = issuer.issue(c, accountId, "test", scopeSet(scopes)).secret().reveal();
            c.commit();
            return secret;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The account a key belongs to. */
    public UUID accountOf(String key) {
        try (Connection c = connection();
             java.sql.PreparedStatement find = c.prepareStatement("select account_id from api_keys where key_hash = ?")) {
            find.setBytes(1, pe.quipu.core.keys.ApiKeySecret.hashOf(key));
            try (java.sql.ResultSet rs = find.executeQuery()) {
                if (!rs.next()) {
                    throw new IllegalArgumentException("no such key");
                }
                return rs.getObject(1, UUID.class);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Set<Scope> scopeSet(Scope... scopes) {
        return scopes.length == 0 ? EnumSet.noneOf(Scope.class) : EnumSet.copyOf(List.of(scopes));
    }

    /** An account made through the API, logged in: its credentials and its first session's tokens. */
    public record Session(UUID accountId, String email, String password, String accessToken, String refreshToken) {
    }

    /** Signs a fresh account up and logs it in, over HTTP. */
    public Session newSession() {
        String email = "user-" + UUID.randomUUID() + "@quipu.test";
        String password = "correct horse battery staple";
        HttpResponse<String> signup = post("/v1/auth/signup", null, "application/json",
                "{\"email\":\"" + email + "\",\"password\":\"" + password + "\",\"nombre\":\"Test User\"}");
        if (signup.statusCode() != 201) {
            throw new IllegalStateException("signup answered " + signup.statusCode() + ": " + signup.body());
        }
        UUID accountId = UUID.fromString(body(signup).get("id").asText());
        HttpResponse<String> login = post("/v1/auth/login", null, "application/json",
                "{\"email\":\"" + email + "\",\"password\":\"" + password + "\"}");
        if (login.statusCode() != 200) {
            throw new IllegalStateException("login answered " + login.statusCode() + ": " + login.body());
        }
        JsonNode tokens = body(login);
        return new Session(accountId, email, password, tokens.get("accessToken").asText(),
                tokens.get("refreshToken").asText());
    }

    /** Reads one row of a query's result. */
    @FunctionalInterface
    public interface RowReader<T> {
        T read(java.sql.ResultSet rs) throws SQLException;
    }

    /** Every row of {@code sql} run with {@code parameters} (an {@link Instant} is bound as a timestamptz). */
    public <T> List<T> rows(String sql, RowReader<T> reader, Object... parameters) {
        try (Connection c = connection(); java.sql.PreparedStatement q = c.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                Object p = parameters[i] instanceof Instant instant
                        ? java.time.OffsetDateTime.ofInstant(instant, java.time.ZoneOffset.UTC) : parameters[i];
                q.setObject(i + 1, p);
            }
            try (java.sql.ResultSet rs = q.executeQuery()) {
                List<T> rows = new java.util.ArrayList<>();
                while (rs.next()) {
                    rows.add(reader.read(rs));
                }
                return rows;
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The first column of every row of {@code sql}, as text. */
    public List<String> texts(String sql, Object... parameters) {
        return rows(sql, rs -> rs.getString(1), parameters);
    }

    public HttpResponse<String> get(String pathAndQuery, String key, String... headers) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(uri(pathAndQuery)).GET();
        return send(builder, key, headers);
    }

    public HttpResponse<String> post(String path, String key, String contentType, String body, String... headers) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(uri(path))
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (contentType != null) {
            builder.header("Content-Type", contentType);
        }
        return send(builder, key, headers);
    }

    public HttpResponse<String> request(String method, String pathAndQuery, String key, String... headers) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(uri(pathAndQuery))
                .method(method, HttpRequest.BodyPublishers.noBody());
        return send(builder, key, headers);
    }

    public HttpResponse<String> send(HttpRequest.Builder builder, String key, String... headers) {
        if (key != null) {
            builder.header("Authorization", "Bearer " + key);
        }
        for (int i = 0; i + 1 < headers.length; i += 2) {
            builder.header(headers[i], headers[i + 1]);
        }
        try {
            return http.send(builder.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * Sends a request written by hand, byte for byte, for what java.net.URI refuses to build (a malformed
     * escape, a malformed request line), and returns the whole answer as text.
     */
    public String raw(String request) {
        try (java.net.Socket socket = new java.net.Socket(java.net.InetAddress.getLoopbackAddress(), uri("/").getPort())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(request.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
            socket.getOutputStream().flush();
            return new String(socket.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A GET written by hand (see {@link #raw}), with the key when given. */
    public String rawGet(String pathAndQuery, String key) {
        return raw("GET " + pathAndQuery + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + (key == null ? "" : "Authorization: Bearer " + key + "\r\n") + "Connection: close\r\n\r\n");
    }

    /** What one ETL command printed and returned. */
    public record EtlRun(int exitCode, String stdout, String stderr) {
        /** The run's id, from the summary line's "(run N)". */
        public long runId() {
            return Long.parseLong(stdout.replaceAll("(?s).*\\(run (\\d+)\\).*", "$1"));
        }
    }

    /** The outbox's etl.run.* events of one run, oldest first, each as {type, data}. */
    public List<JsonNode> etlEvents(long runId) {
        List<JsonNode> events = new java.util.ArrayList<>();
        try (Connection c = connection();
             java.sql.PreparedStatement q = c.prepareStatement("""
                     select type, data from events where type like 'etl.run.%' and (data->>'runId')::bigint = ?
                     order by seq""")) {
            q.setLong(1, runId);
            try (java.sql.ResultSet rs = q.executeQuery()) {
                while (rs.next()) {
                    JsonNode data = json.readTree(rs.getString(2));
                    events.add(json.createObjectNode().put("type", rs.getString(1)).set("data", data));
                }
            }
        } catch (SQLException | IOException e) {
            throw new IllegalStateException(e);
        }
        return events;
    }

    /**
     * Runs {@code java -jar quipu-etl.jar <args…> config.yml} in this JVM, on the app's embedded database (the
     * ETL attaches to the server the app started) and the BCRP stand-in, with the test clock.
     */
    /**
     * Runs the ETL in this JVM on the test database. The check against truncated padrón files is off, since test
     * classes load registries of every size one after another; {@link #etlKeeping} turns it on.
     */
    public EtlRun etl(String... args) {
        return etlKeeping(0, args);
    }

    /** {@link #etl}, refusing a padrón with fewer records than {@code minRetainedShare} of the registry in service. */
    public EtlRun etlKeeping(double minRetainedShare, String... args) {
        try {
            Path config = Files.createTempFile("quipu-etl-", ".yml");
            Files.writeString(config, """
                    database:
                      embeddedDataDirectory: %s
                    bcrp:
                      baseUrl: %s
                      attemptTimeout: 1400ms
                      maxAttempts: 3
                      retryWait: 200ms
                    etl:
                      maxRejectedShare: 0.001
                      minRetainedShare: %s
                    """.formatted(dataDirectory, bcrp.baseUrl(), minRetainedShare));
            String[] full = java.util.Arrays.copyOf(args, args.length + 1);
            full[args.length] = config.toString();
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
            java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
            int code = new pe.quipu.etl.QuipuEtl(clock, new java.io.PrintStream(out, true, java.nio.charset.StandardCharsets.UTF_8),
                    new java.io.PrintStream(err, true, java.nio.charset.StandardCharsets.UTF_8)).run(full);
            Files.deleteIfExists(config);
            return new EtlRun(code, out.toString(java.nio.charset.StandardCharsets.UTF_8),
                    err.toString(java.nio.charset.StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A PATCH with a body, as {@link #post}. */
    public HttpResponse<String> patch(String path, String key, String contentType, String body, String... headers) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(uri(path))
                .method("PATCH", HttpRequest.BodyPublishers.ofString(body));
        if (contentType != null) {
            builder.header("Content-Type", contentType);
        }
        return send(builder, key, headers);
    }

    /** The private key the instances sign access tokens with (a JWK), for tests that forge tokens. */
    public String signingKeyJwk() {
        try {
            return Files.readString(dataDirectory.resolveSibling("jwt-signing-key.json"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A login over HTTP, from this client (127.0.0.1). */
    public HttpResponse<String> login(String email, String password) {
        return post("/v1/auth/login", null, "application/json",
                "{\"email\":\"" + email + "\",\"password\":\"" + password + "\"}");
    }

    /** A refresh over HTTP. */
    public HttpResponse<String> refresh(String refreshToken) {
        return post("/v1/auth/refresh", null, "application/json", "{\"refreshToken\":\"" + refreshToken + "\"}");
    }

    public JsonNode body(HttpResponse<String> response) {
        try {
            return json.readTree(response.body());
        } catch (IOException e) {
            throw new UncheckedIOException("not JSON: " + response.body(), e);
        }
    }

    /** The second instance's application object (see {@link #peer}), started if need be. */
    public QuipuApplication peerApplication() {
        return peer().app.getApplication();
    }
}
