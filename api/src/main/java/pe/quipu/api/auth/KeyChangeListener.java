package pe.quipu.api.auth;

import io.dropwizard.lifecycle.Managed;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import pe.quipu.core.db.QuipuDatabase;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;

/**
 * Listens on PostgreSQL's {@code quipu_api_keys} channel (fed by a trigger on {@code api_keys}) and evicts
 * the changed key from this instance's cache. Needs no server beyond PostgreSQL, and reaches every
 * instance that shares the database. After a lost connection the whole cache is dropped, since
 * notifications sent meanwhile are gone.
 */
public final class KeyChangeListener implements Managed {

    static final String CHANNEL = "quipu_api_keys";
    private static final Logger LOG = LoggerFactory.getLogger(KeyChangeListener.class);

    private final QuipuDatabase database;
    private final ApiKeyAuthenticator authenticator;
    private volatile boolean running;
    private Thread thread;

    public KeyChangeListener(QuipuDatabase database, ApiKeyAuthenticator authenticator) {
        this.database = database;
        this.authenticator = authenticator;
    }

    @Override
    public void start() throws SQLException {
        running = true;
        Connection first = listen();
        thread = Thread.ofPlatform().name("quipu-key-listener").daemon().start(() -> loop(first));
    }

    @Override
    public void stop() throws InterruptedException {
        running = false;
        if (thread != null) {
            thread.interrupt();
            thread.join(5000);
        }
    }

    private Connection listen() throws SQLException {
        Properties props = new Properties();
        props.setProperty("user", database.user());
        props.setProperty("password", database.password());
        props.setProperty("ApplicationName", "quipu-api-key-listener");
        Connection connection = DriverManager.getConnection(database.jdbcUrl(), props);
        try (Statement s = connection.createStatement()) {
            s.execute("listen " + CHANNEL);
        }
        return connection;
    }

    private void loop(Connection initial) {
        Connection connection = initial;
        while (running) {
            try {
                if (connection == null) {
                    connection = listen();
                    authenticator.evictAll();
                    LOG.info("Listening for API key changes again");
                }
                PGNotification[] notifications = connection.unwrap(PGConnection.class).getNotifications(1000);
                if (notifications != null) {
                    for (PGNotification n : notifications) {
                        authenticator.evict(n.getParameter());
                    }
                }
            } catch (SQLException e) {
                if (!running) {
                    break;
                }
                LOG.warn("Lost the API key change listener's connection; retrying: {}", e.getMessage());
                authenticator.evictAll();
                close(connection);
                connection = null;
                sleep();
            }
        }
        close(connection);
    }

    private static void sleep() {
        try {
            Thread.sleep(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void close(Connection connection) {
        if (connection == null) {
            return;
        }
        try {
            connection.close();
        } catch (SQLException ignored) {
            // already gone
        }
    }
}
