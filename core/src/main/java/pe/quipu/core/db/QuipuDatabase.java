package pe.quipu.core.db;

import java.util.Optional;

/**
 * The database a Quipu process talks to: an external PostgreSQL named by {@code DATABASE_URL},
 * or the shared embedded server. Close it after closing the process's own connection pools.
 */
public final class QuipuDatabase implements AutoCloseable {

    private final String jdbcUrl;
    private final String user;
    private final String password;
    private final EmbeddedPostgresServer embedded;

    private QuipuDatabase(String jdbcUrl, String user, String password, EmbeddedPostgresServer embedded) {
        this.jdbcUrl = jdbcUrl;
        this.user = user;
        this.password = password;
        this.embedded = embedded;
    }

    public static QuipuDatabase open(DatabaseSettings settings, String role) {
        if (settings.external()) {
            if (!settings.url().startsWith("jdbc:postgresql:")) {
                throw new IllegalArgumentException("DATABASE_URL must be a jdbc:postgresql://host:port/database URL");
            }
            return new QuipuDatabase(settings.url(), settings.user(), settings.password(), null);
        }
        EmbeddedPostgresServer server = EmbeddedPostgresServer.acquire(
                settings.embeddedDataDirectory(), settings.embeddedPort(), settings.embeddedServerSettings(), role);
        return new QuipuDatabase(server.jdbcUrl(), EmbeddedPostgresServer.USER, server.password(), server);
    }

    /**
     * The {@code ApplicationName} for every connection this process opens: {@code quipu <purpose> (pid N)}. The
     * pid lets the embedded server tell this process's connections (even ones just closed, which linger for a
     * moment in {@code pg_stat_activity}) from other clients'.
     */
    public static String applicationName(String purpose) {
        return "quipu " + purpose + " " + PROCESS_TAG;
    }

    static final String PROCESS_TAG = "(pid " + ProcessHandle.current().pid() + ")";

    public String jdbcUrl() {
        return jdbcUrl;
    }

    public String user() {
        return user;
    }

    /** Never logged. */
    public String password() {
        return password;
    }

    public Optional<EmbeddedPostgresServer> embedded() {
        return Optional.ofNullable(embedded);
    }

    @Override
    public void close() {
        if (embedded != null) {
            embedded.close();
        }
    }
}
