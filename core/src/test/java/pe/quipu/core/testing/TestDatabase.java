package pe.quipu.core.testing;

import org.jdbi.v3.core.Jdbi;
import pe.quipu.core.db.DatabaseSettings;
import pe.quipu.core.db.QuipuDatabase;
import pe.quipu.core.db.QuipuJdbi;
import pe.quipu.core.db.SchemaMigrations;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * The database of a test JVM: one real embedded PostgreSQL in a temporary directory, migrated, shared by every test
 * class of the JVM (each keeps to its own data) and removed when the JVM exits. Applications under test attach to
 * it by its data directory, as the API and the ETL attach to each other's server.
 */
public final class TestDatabase {

    private static TestDatabase instance;

    private final Path dataDirectory;
    private final QuipuDatabase database;
    private final Jdbi jdbi;

    private TestDatabase() throws IOException {
        dataDirectory = Files.createTempDirectory("quipu-test-").resolve("postgres");
        database = QuipuDatabase.open(DatabaseSettings.embedded(dataDirectory), "test");
        SchemaMigrations.apply(database);
        jdbi = QuipuJdbi.connectingTo(database, "test");
        Runtime.getRuntime().addShutdownHook(new Thread(this::remove, "quipu-test-database"));
    }

    public static synchronized TestDatabase get() {
        if (instance == null) {
            try {
                instance = new TestDatabase();
            } catch (IOException e) {
                throw new IllegalStateException("could not create the test database", e);
            }
        }
        return instance;
    }

    /** The embedded server's data directory: point {@code database.embeddedDataDirectory} here. */
    public Path dataDirectory() {
        return dataDirectory;
    }

    /** The folder around the data directory, for the other files a test run keeps (e.g. a signing key). */
    public Path folder() {
        return dataDirectory.getParent();
    }

    public QuipuDatabase database() {
        return database;
    }

    /** Quipu's Jdbi over this database; each handle a connection of its own (autocommit on). */
    public Jdbi jdbi() {
        return jdbi;
    }

    /** A plain connection of its own (autocommit on), for tests that set rows up or inspect them directly. */
    public Connection connection() throws SQLException {
        Properties props = new Properties();
        props.setProperty("user", database.user());
        props.setProperty("password", database.password());
        props.setProperty("ApplicationName", QuipuDatabase.applicationName("test"));
        return DriverManager.getConnection(database.jdbcUrl(), props);
    }

    /** Reads one row of a query's result. */
    @FunctionalInterface
    public interface RowReader<T> {
        T read(ResultSet rs) throws SQLException;
    }

    /** Every row of {@code sql} run with positional {@code parameters} ({@code ?}; an Instant is a timestamptz). */
    public <T> List<T> rows(String sql, RowReader<T> reader, Object... parameters) {
        return jdbi.withHandle(h -> h.select(sql, parameters).map((rs, ctx) -> reader.read(rs)).list());
    }

    /** The first column of every row of {@code sql}, as text. */
    public List<String> texts(String sql, Object... parameters) {
        return rows(sql, rs -> rs.getString(1), parameters);
    }

    /**
     * At JVM exit an application under test may release the server after this hook runs: wait for the postmaster
     * to end, and stop it if nobody did, before its data directory is deleted (a server whose directory is gone
     * could never be stopped by Quipu).
     */
    private void remove() {
        database.close();
        Path pidFile = dataDirectory.resolve("postmaster.pid");
        try {
            if (Files.exists(pidFile)) {
                long pid = Long.parseLong(Files.readAllLines(pidFile).getFirst().strip());
                ProcessHandle.of(pid).ifPresent(TestDatabase::awaitOrStop);
            }
        } catch (IOException | RuntimeException e) {
            // A pid file being removed while read: the server is stopping by itself.
        }
        try (var paths = Files.walk(folder())) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // a temporary folder; the OS cleans it eventually
        }
    }

    private static void awaitOrStop(ProcessHandle postmaster) {
        try {
            postmaster.onExit().get(5, TimeUnit.SECONDS);
        } catch (Exception stillRunning) {
            // SIGINT: PostgreSQL's fast shutdown, which ends the last connections too; the JVM is exiting, and
            // Surefire halts it if its hooks take too long.
            try {
                new ProcessBuilder("kill", "-INT", Long.toString(postmaster.pid())).start().waitFor();
            } catch (IOException | InterruptedException e) {
                postmaster.destroy();
            }
            postmaster.onExit().orTimeout(15, TimeUnit.SECONDS).join();
        }
    }
}
