package pe.quipu.api.platform;

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
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * One PostgreSQL connection that LISTENs on several channels and hands each notification to its channel's
 * handler. Needs no server beyond PostgreSQL and reaches every instance sharing the database. Notifications
 * sent while the connection is down are lost, so every channel's {@code resync} runs (drop a cache, reload a
 * table) when the connection is lost, as what is cached may be going stale unnoticed, and again once it is back,
 * to catch up with whatever changed meanwhile.
 */
public final class NotificationListener implements Managed {

    private static final Logger LOG = LoggerFactory.getLogger(NotificationListener.class);
    // Channel names go into LISTEN unquoted; only plain identifiers are accepted.
    private static final Pattern IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]*");

    private final QuipuDatabase database;
    private final Map<String, Channel> channels = new LinkedHashMap<>();
    private volatile boolean running;
    /** True while the LISTEN connection is up: no notification can be missing. */
    private volatile boolean listening;
    private Thread thread;

    private record Channel(Consumer<String> onNotification, Runnable resync) {
    }

    public NotificationListener(QuipuDatabase database) {
        this.database = database;
    }

    /**
     * @param onNotification receives the notification's payload (empty string when none)
     * @param resync         runs when the connection is lost and when it is back, since notifications sent
     *                       meanwhile are gone
     */
    public NotificationListener on(String channel, Consumer<String> onNotification, Runnable resync) {
        if (!IDENTIFIER.matcher(channel).matches()) {
            throw new IllegalArgumentException("not a plain channel name: " + channel);
        }
        if (thread != null) {
            throw new IllegalStateException("channels are added before start");
        }
        channels.put(channel, new Channel(onNotification, resync));
        return this;
    }

    @Override
    public void start() throws SQLException {
        running = true;
        // LISTEN before start returns: whatever is loaded after this (e.g. the ubigeo catalogue) misses no change.
        Connection first = listen();
        listening = true;
        thread = Thread.ofPlatform().name("quipu-notification-listener").daemon().start(() -> loop(first));
    }

    @Override
    public void stop() throws InterruptedException {
        running = false;
        listening = false;
        if (thread != null) {
            thread.interrupt();
            thread.join(5000);
        }
    }

    /**
     * Whether every change notified from now on will be seen: the LISTEN connection is up. A cache that is kept
     * exact by notifications serves from memory only while this holds.
     */
    public boolean isListening() {
        return listening;
    }

    /** Plain JDBC: LISTEN's notifications come through PgJDBC's own API on a connection held open, not Jdbi's. */
    private Connection listen() throws SQLException {
        Properties props = new Properties();
        props.setProperty("user", database.user());
        props.setProperty("password", database.password());
        props.setProperty("ApplicationName", QuipuDatabase.applicationName("api listener"));
        Connection connection = DriverManager.getConnection(database.jdbcUrl(), props);
        try (Statement s = connection.createStatement()) {
            for (String channel : channels.keySet()) {
                s.execute("listen " + channel);
            }
        } catch (SQLException e) {
            close(connection);
            throw e;
        }
        return connection;
    }

    private void loop(Connection initial) {
        Connection connection = initial;
        while (running) {
            try {
                if (connection == null) {
                    connection = listen();
                    listening = true;
                    channels.forEach((name, channel) -> run(name, channel.resync()));
                    LOG.info("Listening for changes again on {}", channels.keySet());
                }
                PGNotification[] notifications = connection.unwrap(PGConnection.class).getNotifications(1000);
                if (notifications != null) {
                    for (PGNotification n : notifications) {
                        Channel channel = channels.get(n.getName());
                        if (channel != null) {
                            String payload = n.getParameter() == null ? "" : n.getParameter();
                            run(n.getName(), () -> channel.onNotification().accept(payload));
                        }
                    }
                }
            } catch (SQLException e) {
                if (!running) {
                    break;
                }
                listening = false;
                LOG.warn("Lost the notification listener's connection; retrying: {}", e.getMessage());
                // The database may well be unreachable now: a resync that fails here is retried on reconnect.
                channels.forEach((name, channel) -> run(name, channel.resync()));
                close(connection);
                connection = null;
                sleep();
            }
        }
        close(connection);
    }

    /** A failing handler is logged and must not end the loop that serves the other channels. */
    private static void run(String channel, Runnable handler) {
        try {
            handler.run();
        } catch (RuntimeException e) {
            LOG.error("Handling a change on {} failed", channel, e);
        }
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
