package pe.quipu.core.db;

import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.JdbiException;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A real PostgreSQL 17 over a data directory that several Quipu processes (the API, {@code create-key},
 * {@code db migrate}, the ETL) share.
 *
 * <p>The first process to need it starts it with {@code pg_ctl}; later ones attach to the running server
 * (its pid and port come from {@code postmaster.pid}). Each process holds one "presence" connection while
 * it uses the server. On release a process stops the server only when no other client is connected, so
 * a short command never takes the database away from a running API or load. Start, attach and stop
 * decisions are serialised across processes by a lock file beside the data directory; PostgreSQL's own
 * {@code postmaster.pid} interlock guarantees a second postmaster can never open the same directory.
 */
public final class EmbeddedPostgresServer implements AutoCloseable {

    public static final String DATABASE = "quipu";
    public static final String USER = "postgres";

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedPostgresServer.class);
    private static final ConcurrentHashMap<Path, ReentrantLock> IN_PROCESS_LOCKS = new ConcurrentHashMap<>();
    /** The instances of this process holding each data directory; shared by all of them, as the server is. */
    private static final ConcurrentHashMap<Path, Set<EmbeddedPostgresServer>> OPEN = new ConcurrentHashMap<>();

    private final Path dataDirectory;
    private final Path binaries;
    private final int port;
    private final String password;
    private final Handle presence;
    private boolean released;

    private EmbeddedPostgresServer(Path dataDirectory, Path binaries, int port, String password, Handle presence) {
        this.dataDirectory = dataDirectory;
        this.binaries = binaries;
        this.port = port;
        this.password = password;
        this.presence = presence;
    }

    /**
     * Attaches to the server running over {@code dataDirectory}, or initialises and starts it.
     *
     * @param role a short name of this process ("api", "cli", "etl", "test") shown in {@code pg_stat_activity}
     */
    public static EmbeddedPostgresServer acquire(Path dataDirectory, int preferredPort, String role) {
        return acquire(dataDirectory, preferredPort, Map.of(), role);
    }

    /**
     * As {@link #acquire(Path, int, String)}, and a server this call starts runs with {@code serverSettings} too
     * ({@code -c name=value} each; see {@link DatabaseSettings#embeddedServerSettings}).
     */
    public static EmbeddedPostgresServer acquire(Path dataDirectory, int preferredPort, Map<String, String> serverSettings,
                                                 String role) {
        Path dir = dataDirectory.toAbsolutePath().normalize();
        Path binaries = PostgresBinaries.unpacked();
        return withLock(dir, () -> {
            int running = runningPort(dir).orElse(-1);
            if (running < 0 && !Files.exists(dir.resolve("PG_VERSION"))) {
                initdb(binaries, dir);
            }
            Optional<String> stored = ServerPassword.stored(dir);
            if (stored.isPresent() && trusts(dir)) {
                // A password file beside a data directory that trusts again (restored from an old backup, say).
                ServerPassword.reopen(dir);
                stored = Optional.empty();
            }
            int port = running >= 0 ? running : start(binaries, dir, preferredPort, serverSettings);
            if (running >= 0) {
                LOG.info("Attaching to the embedded PostgreSQL running on port {} over {}", port, dir);
            }
            String password = stored.isPresent() ? stored.get() : protect(dir, port);
            createDatabase(port, password, running < 0 && stored.isPresent());
            Handle presence = open(port, DATABASE, password, QuipuDatabase.applicationName(role + " presence"));
            EmbeddedPostgresServer server = new EmbeddedPostgresServer(dir, binaries, port, password, presence);
            OPEN.computeIfAbsent(dir, d -> ConcurrentHashMap.newKeySet()).add(server);
            return server;
        });
    }

    /**
     * Puts the pending password in force on the server over {@code dir}, running on {@code port}: sets it as the
     * superuser's (as a SCRAM verifier computed here, so the password itself never reaches the server or its log),
     * makes every {@code trust} line of pg_hba.conf {@code scram-sha-256}, has the server reload that file and waits
     * until it has, then stores the password. Each step may be done again: a start interrupted anywhere in between
     * takes the same pending password and goes through them all once more.
     *
     * <p>Data directories made before Quipu kept a password ({@code initdb -A trust}) are protected this way at their
     * next start, and so is a server an older Quipu started and left running.
     */
    private static String protect(Path dir, int port) {
        String password = ServerPassword.pending(dir);
        boolean trusted = trusts(dir);
        if (trusted) {
            LOG.warn("The embedded PostgreSQL over {} lets every local connection in as its superuser, without a"
                    + " password (pg_hba.conf: trust). Setting a password, kept in {} (readable by its owner only),"
                    + " and asking for it from now on", dir, ServerPassword.file(dir));
        }
        try (Handle h = open(port, "postgres", password, QuipuDatabase.applicationName("password"))) {
            setVerifier(h, password);
            if (trusted) {
                requirePasswords(dir);
            }
            // Also after a start interrupted between the rewrite and the reload: the server may still trust.
            OffsetDateTime loadedBefore = h.attach(ServerRows.class).configurationLoadedAt();
            h.attach(ServerRows.class).reloadConfiguration();
            awaitReload(port, password, loadedBefore);
        } catch (RuntimeException e) {
            throw new IllegalStateException("could not set the embedded PostgreSQL's password", e);
        }
        ServerPassword.commit(dir);
        return password;
    }

    /**
     * New connections follow the new pg_hba.conf once the postmaster has reloaded it, a moment after
     * {@code pg_reload_conf()} returns: a new session's {@code pg_conf_load_time()} tells when that was.
     */
    private static void awaitReload(int port, String password, OffsetDateTime before) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try (Handle h = open(port, "postgres", password, QuipuDatabase.applicationName("password"))) {
                if (h.attach(ServerRows.class).configurationLoadedAt().isAfter(before)) {
                    return;
                }
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the embedded PostgreSQL did not reload pg_hba.conf within 30 s");
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while the embedded PostgreSQL reloaded pg_hba.conf", e);
            }
        }
    }

    /** Whether a line of {@code dir}'s pg_hba.conf lets connections in without a password. */
    static boolean trusts(Path dir) {
        return hbaLines(dir).stream().anyMatch(EmbeddedPostgresServer::trustsRule);
    }

    /** Whether the line of a pg_hba.conf is a rule whose method is {@code trust}. */
    static boolean trustsRule(String line) {
        return methodIndex(line) >= 0;
    }

    /** Rewrites {@code dir}'s pg_hba.conf with {@code scram-sha-256} for {@code trust}, through a 0600 temporary file. */
    private static void requirePasswords(Path dir) {
        StringBuilder text = new StringBuilder();
        for (String line : hbaLines(dir)) {
            int at = methodIndex(line);
            text.append(at < 0 ? line : line.substring(0, at) + "scram-sha-256" + line.substring(at + "trust".length()))
                    .append('\n');
        }
        Path hba = dir.resolve("pg_hba.conf");
        try {
            Path temp = Files.createTempFile(dir, ".pg_hba", ".tmp", PosixFilePermissions.asFileAttribute(
                    PosixFilePermissions.fromString("rw-------")));
            try {
                Files.writeString(temp, text, StandardCharsets.UTF_8);
                Files.move(temp, hba, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } finally {
                Files.deleteIfExists(temp);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not rewrite " + hba, e);
        }
    }

    private static List<String> hbaLines(Path dir) {
        try {
            return Files.readAllLines(dir.resolve("pg_hba.conf"), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("could not read " + dir.resolve("pg_hba.conf"), e);
        }
    }

    /** Where the word {@code trust} stands as a field of a rule (not in a comment), or -1. */
    private static int methodIndex(String line) {
        java.util.regex.Matcher m = TRUST.matcher(line);
        return m.find() ? m.start(1) : -1;
    }

    /** A rule whose method is trust: the word after which only {@code name=value} options and a comment follow. */
    private static final java.util.regex.Pattern TRUST = java.util.regex.Pattern.compile(
            "^[^#]*?\\s(trust)(?:\\s+[A-Za-z_]+=\\S*)*\\s*(?:#.*)?$");

    public String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + DATABASE;
    }

    public int port() {
        return port;
    }

    /** The password of {@link #USER}, kept beside the data directory ({@code postgres.password}). Never logged. */
    public String password() {
        return password;
    }

    public Path dataDirectory() {
        return dataDirectory;
    }

    /**
     * Gives the server up: closes this process's presence and stops the server when no other client
     * remains. Close this process's own connection pools first.
     */
    @Override
    public synchronized void close() {
        if (released) {
            return;
        }
        released = true;
        withLock(dataDirectory, () -> {
            closeQuietly(presence);
            Set<EmbeddedPostgresServer> holders = OPEN.get(dataDirectory);
            holders.remove(this);
            if (runningPort(dataDirectory).isEmpty()) {
                return null;
            }
            // Every connection of this process is tagged with its pid, so connections it has just closed, still
            // listed for a moment in pg_stat_activity, are not mistaken for another client's. Other holders in
            // this same process (a command run inside a running app, as tests do) are known exactly.
            int others = holders.size();
            try (Handle h = open(port, "postgres", password, QuipuDatabase.applicationName("release"))) {
                others += h.attach(ServerRows.class).clientsNotNamed("%" + QuipuDatabase.PROCESS_TAG);
            } catch (JdbiException | IllegalStateException e) {
                LOG.warn("Could not count the embedded PostgreSQL's clients; leaving it running", e);
                return null;
            }
            if (others > 0) {
                LOG.info("Leaving the embedded PostgreSQL running: {} other client connection(s)", others);
                return null;
            }
            run(binaries, List.of(pgBin(binaries, "pg_ctl"), "-D", dataDirectory.toString(), "stop",
                    "-m", "fast", "-w", "-t", "60"));
            LOG.info("Stopped the embedded PostgreSQL over {}", dataDirectory);
            return null;
        });
    }

    private interface Locked<T> {
        T run();
    }

    private static <T> T withLock(Path dir, Locked<T> action) {
        ReentrantLock inProcess = IN_PROCESS_LOCKS.computeIfAbsent(dir, d -> new ReentrantLock());
        inProcess.lock();
        try {
            Files.createDirectories(dir.getParent());
            Path lockFile = dir.resolveSibling(dir.getFileName() + ".lock");
            try (FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                 FileLock ignored = channel.lock()) {
                return action.run();
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not lock " + dir, e);
        } finally {
            inProcess.unlock();
        }
    }

    /** The port of a live postmaster serving {@code dir}, if there is one that accepts connections. */
    private static Optional<Integer> runningPort(Path dir) {
        Path pidFile = dir.resolve("postmaster.pid");
        if (!Files.exists(pidFile)) {
            return Optional.empty();
        }
        try {
            List<String> lines = Files.readAllLines(pidFile, StandardCharsets.UTF_8);
            if (lines.size() < 4) {
                return Optional.empty();
            }
            long pid = Long.parseLong(lines.get(0).trim());
            int port = Integer.parseInt(lines.get(3).trim());
            boolean alive = ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
            if (!alive || !accepts(port)) {
                return Optional.empty();
            }
            return Optional.of(port);
        } catch (IOException | NumberFormatException e) {
            return Optional.empty();
        }
    }

    private static boolean accepts(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * A new data directory whose every connection must give the superuser's password: the stored one when there is
     * one (the data directory was deleted and its password kept), else a new pending one, in force once stored.
     */
    private static void initdb(Path binaries, Path dir) {
        LOG.info("Initialising a new embedded PostgreSQL data directory at {}", dir);
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        boolean stored = ServerPassword.stored(dir).isPresent();
        if (!stored) {
            ServerPassword.pending(dir);
        }
        Path passwordFile = stored ? ServerPassword.file(dir) : ServerPassword.pendingFile(dir);
        run(binaries, List.of(pgBin(binaries, "initdb"), "-A", "scram-sha-256", "--pwfile=" + passwordFile,
                "-U", USER, "-D", dir.toString(), "-E", "UTF-8", "--locale=C", "--no-instructions"));
        if (!stored) {
            ServerPassword.commit(dir);
        }
    }

    /** Starts the server on {@code preferredPort}, or on a free port when it is 0, and returns the port. */
    /**
     * Rounds of PBKDF2 in the superuser's SCRAM verifier. The password is 32 random bytes, not a person's: rounds slow
     * down the guessing of a weak password from a stolen verifier, and no number of guesses reaches 2^256. PostgreSQL's
     * 4,096 (its default, for people's passwords) cost every new connection 4,096 rounds on the client, which a
     * process that has just started runs interpreted and then compiles: about half a second of every ETL run's
     * processor time on two cores.
     */
    static final int SCRAM_ROUNDS = 16;

    /**
     * Sets the superuser's password as a SCRAM verifier computed here ({@link #SCRAM_ROUNDS} rounds, a random
     * 16-byte salt), so that the password itself never reaches the server, its SQL or its log.
     */
    private static void setVerifier(Handle h, String password) {
        byte[] salt = new byte[16];
        new java.security.SecureRandom().nextBytes(salt);
        String verifier = org.postgresql.util.PasswordUtil.encodeScramSha256(password.toCharArray(), SCRAM_ROUNDS, salt);
        // Base64 and SCRAM's own punctuation only: nothing to escape in the literal.
        h.execute("alter user " + USER + " password '" + verifier + "'");
    }

    /**
     * A server this process started whose verifier has more rounds than {@link #SCRAM_ROUNDS} (set by an older
     * Quipu) gets the same password with those rounds; connections open meanwhile are not affected.
     */
    private static void lighten(Handle h, String password) {
        String stored = h.createQuery("select rolpassword from pg_authid where rolname = :user").bind("user", USER)
                .mapTo(String.class).findOne().orElse("");
        if (stored.startsWith("SCRAM-SHA-256$") && !stored.startsWith("SCRAM-SHA-256$" + SCRAM_ROUNDS + ":")) {
            setVerifier(h, password);
            LOG.info("The embedded PostgreSQL's superuser verifier now has {} rounds of PBKDF2 (same password)",
                    SCRAM_ROUNDS);
        }
    }

    private static int start(Path binaries, Path dir, int preferredPort, Map<String, String> extraSettings) {
        int port = preferredPort > 0 ? preferredPort : freePort();
        LOG.info("Starting the embedded PostgreSQL on 127.0.0.1:{} over {}", port, dir);
        // wal_level=minimal: a single-node embedded server has no replicas to feed, and it lets PostgreSQL skip
        // the WAL for tables created and filled in one transaction, as the padrón load builds its registry.
        StringBuilder options = new StringBuilder("-p " + port + " -c listen_addresses=127.0.0.1 "
                + "-c unix_socket_directories= -c max_connections=200 -c timezone=UTC -c wal_level=minimal "
                + "-c max_wal_senders=0");
        extraSettings.forEach((name, value) -> options.append(" -c ").append(name).append('=').append(value));
        if (!extraSettings.isEmpty()) {
            LOG.info("Extra settings for the embedded PostgreSQL: {}", extraSettings);
        }
        Path log = dir.resolveSibling(dir.getFileName() + ".log");
        run(binaries, List.of(pgBin(binaries, "pg_ctl"), "-D", dir.toString(), "-o", options.toString(),
                "-l", log.toString(), "-w", "-t", "120", "start"));
        return port;
    }

    /** Creates Quipu's database when missing, on the connection that first {@link #lighten}s, if asked. */
    private static void createDatabase(int port, String password, boolean lighten) {
        try (Handle h = open(port, "postgres", password, QuipuDatabase.applicationName("bootstrap"))) {
            if (lighten) {
                lighten(h, password);
            }
            if (!h.attach(ServerRows.class).databaseExists(DATABASE)) {
                h.execute("create database " + DATABASE);
            }
        } catch (JdbiException e) {
            throw new IllegalStateException("could not create the embedded database", e);
        }
    }

    private static Handle open(int port, String database, String password, String applicationName) {
        Properties props = new Properties();
        props.setProperty("user", USER);
        props.setProperty("password", password);
        props.setProperty("ApplicationName", applicationName);
        try {
            return QuipuJdbi.configure(Jdbi.create("jdbc:postgresql://127.0.0.1:" + port + "/" + database, props))
                    .open();
        } catch (JdbiException e) {
            if (e.getCause() instanceof SQLException sql && "28P01".equals(sql.getSQLState())) {
                throw new IllegalStateException("the embedded PostgreSQL on port " + port + " refused the password"
                        + " kept beside its data directory (postgres.password): was the file replaced? To set a new"
                        + " one, see docs/security.md, \"The embedded PostgreSQL's password\"", e);
            }
            throw new IllegalStateException("could not connect to the embedded PostgreSQL on port " + port, e);
        }
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String pgBin(Path binaries, String name) {
        return binaries.resolve("bin").resolve(name).toString();
    }

    /** PostgreSQL refuses to run as root; as root the tools run in a user namespace where they are not. */
    private static void run(Path binaries, List<String> command) {
        List<String> full = new ArrayList<>();
        if (isRoot()) {
            full.add("unshare");
            full.add("-U");
        }
        full.addAll(command);
        try {
            Process process = new ProcessBuilder(full).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(180, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException(command.getFirst() + " did not finish in 180 s");
            }
            if (process.exitValue() != 0) {
                throw new IllegalStateException(Path.of(command.getFirst()).getFileName() + " failed (exit "
                        + process.exitValue() + "): " + output.strip());
            }
            LOG.debug("{}: {}", Path.of(command.getFirst()).getFileName(), output.strip());
        } catch (IOException e) {
            throw new UncheckedIOException("could not run " + command.getFirst(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + command.getFirst(), e);
        }
    }

    private static boolean isRoot() {
        return new com.sun.security.auth.module.UnixSystem().getUid() == 0;
    }

    private static void closeQuietly(Handle h) {
        try {
            h.close();
        } catch (JdbiException e) {
            LOG.debug("closing the presence connection", e);
        }
    }

    /** What the server is asked about itself, before and beside Quipu's own database. */
    interface ServerRows {
        @SqlQuery("""
                select count(*) from pg_stat_activity
                 where backend_type = 'client backend' and application_name not like :pattern""")
        int clientsNotNamed(String pattern);

        @SqlQuery("select exists (select 1 from pg_database where datname = :name)")
        boolean databaseExists(String name);

        @SqlQuery("select pg_conf_load_time()")
        OffsetDateTime configurationLoadedAt();

        @SqlQuery("select pg_reload_conf()")
        boolean reloadConfiguration();
    }
}
