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
import java.nio.file.StandardOpenOption;
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
    private final Handle presence;
    private boolean released;

    private EmbeddedPostgresServer(Path dataDirectory, Path binaries, int port, Handle presence) {
        this.dataDirectory = dataDirectory;
        this.binaries = binaries;
        this.port = port;
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
            int port = runningPort(dir).orElse(-1);
            if (port < 0) {
                if (!Files.exists(dir.resolve("PG_VERSION"))) {
                    initdb(binaries, dir);
                }
                port = preferredPort > 0 ? preferredPort : freePort();
                start(binaries, dir, port, serverSettings);
                createDatabase(port);
            } else {
                LOG.info("Attaching to the embedded PostgreSQL already running on port {} over {}", port, dir);
            }
            Handle presence = open(port, DATABASE, QuipuDatabase.applicationName(role + " presence"));
            EmbeddedPostgresServer server = new EmbeddedPostgresServer(dir, binaries, port, presence);
            OPEN.computeIfAbsent(dir, d -> ConcurrentHashMap.newKeySet()).add(server);
            return server;
        });
    }

    public String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + DATABASE;
    }

    public int port() {
        return port;
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
            try (Handle h = open(port, "postgres", QuipuDatabase.applicationName("release"))) {
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

    private static void initdb(Path binaries, Path dir) {
        LOG.info("Initialising a new embedded PostgreSQL data directory at {}", dir);
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        run(binaries, List.of(pgBin(binaries, "initdb"), "-A", "trust", "-U", USER, "-D", dir.toString(),
                "-E", "UTF-8", "--locale=C", "--no-instructions"));
    }

    private static void start(Path binaries, Path dir, int port, Map<String, String> extraSettings) {
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
    }

    private static void createDatabase(int port) {
        try (Handle h = open(port, "postgres", QuipuDatabase.applicationName("bootstrap"))) {
            if (!h.attach(ServerRows.class).databaseExists(DATABASE)) {
                h.execute("create database " + DATABASE);
            }
        } catch (JdbiException e) {
            throw new IllegalStateException("could not create the embedded database", e);
        }
    }

    private static Handle open(int port, String database, String applicationName) {
        Properties props = new Properties();
        props.setProperty("user", USER);
        props.setProperty("ApplicationName", applicationName);
        try {
            return QuipuJdbi.configure(Jdbi.create("jdbc:postgresql://127.0.0.1:" + port + "/" + database, props))
                    .open();
        } catch (JdbiException e) {
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
    }
}
