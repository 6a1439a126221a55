package pe.quipu.api.platform;

import com.codahale.metrics.MetricRegistry;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.db.ManagedDataSource;
import io.dropwizard.jdbi3.JdbiFactory;
import io.dropwizard.lifecycle.JettyManaged;
import io.dropwizard.lifecycle.Managed;
import io.dropwizard.lifecycle.setup.LifecycleEnvironment;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.eclipse.jetty.util.component.LifeCycle;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import pe.quipu.api.audit.AuditLog;
import pe.quipu.api.audit.AuditRetention;
import pe.quipu.core.db.DatabaseSettings;
import pe.quipu.core.db.QuipuDatabase;
import pe.quipu.core.db.QuipuJdbi;
import pe.quipu.core.db.SchemaMigrations;
import pe.quipu.core.events.EventOutbox;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

/**
 * What every feature stands on, opened the same way by the server, the delivery worker and the operator commands:
 * the database (embedded or external, migrated before anything reads it), its pool and Jdbi, the clock, JSON, the
 * event outbox, the audit log, and the one LISTEN connection that keeps in-memory copies exact.
 *
 * <p>It owns the lifecycle order. The database is released last, after the pool has closed; the notification
 * listener starts before anything a feature manages, so that no change between a feature's first read and its first
 * notification goes unheard (the ubigeo catalogue, the token denylist), and stops after them.
 */
public final class Platform implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Platform.class);

    private final QuipuDatabase database;
    private final Jdbi jdbi;
    private final Clock clock;
    private final ObjectMapper json;
    private final MetricRegistry metrics;
    /** The process's Prometheus metrics (contract §13), one registry per platform: never the client's global one. */
    private final PrometheusRegistry prometheus = new PrometheusRegistry();
    private final LifecycleEnvironment lifecycle;
    private final NotificationListener notifications;
    private final EventOutbox outbox;
    private final AuditLog audit;
    /** A command's own managed parts, started by {@link #start()}, newest first; empty for the server. */
    private final List<LifeCycle> started = new ArrayList<>();
    private final boolean ownLifecycle;

    private Platform(QuipuDatabase database, Jdbi jdbi, Clock clock, ObjectMapper json, MetricRegistry metrics,
                     LifecycleEnvironment lifecycle, NotificationListener notifications, boolean ownLifecycle) {
        this.database = database;
        this.jdbi = jdbi;
        this.clock = clock;
        this.json = json;
        this.metrics = metrics;
        this.lifecycle = lifecycle;
        this.notifications = notifications;
        this.ownLifecycle = ownLifecycle;
        this.outbox = new EventOutbox(clock, json);
        this.audit = new AuditLog(clock, json);
    }

    /**
     * The API server's, on Dropwizard's environment: its lifecycle (started with the server), its metrics, and the
     * {@code database} health check, which runs the pool's validation query. The audit log's retention runs daily.
     */
    public static Platform forServer(Environment environment, DatabaseSettings settings, Clock clock) {
        LifecycleEnvironment lifecycle = environment.lifecycle();
        QuipuDatabase database = QuipuDatabase.open(settings, "api");
        // Managed first, so that it is released last, after the pool below has closed.
        lifecycle.manage(released(database));
        SchemaMigrations.apply(database);
        Jdbi jdbi = QuipuJdbi.configure(new JdbiFactory().build(environment,
                DatabaseSupport.dataSourceFactory(database, "api", settings.maxConnections()), "database"));
        NotificationListener notifications = new NotificationListener(database);
        lifecycle.manage(notifications);
        Platform platform = new Platform(database, jdbi, clock, environment.getObjectMapper(), environment.metrics(),
                lifecycle, notifications, false);
        // The audit log keeps 12 months; older rows are deleted daily.
        AuditRetention retention = new AuditRetention(jdbi, platform.audit);
        platform.manage(Periodic.every("quipu-audit-retention", AuditRetention.FIRST_DELAY, AuditRetention.EVERY,
                retention::pruneAndLog));
        return platform;
    }

    /**
     * The delivery worker's: a pool of {@code maxConnections} and the notification listener, on a lifecycle of its
     * own that {@link #start()} starts and {@link #close()} stops.
     */
    public static Platform forWorker(DatabaseSettings settings, Clock clock, ObjectMapper json, int maxConnections) {
        return forCommand("deliver", "deliver", settings, clock, json, maxConnections, true);
    }

    /**
     * An operator command's: a small pool, no notifications (a command keeps nothing in memory), started at once;
     * close it when done.
     */
    public static Platform forOperator(String command, DatabaseSettings settings, Clock clock, ObjectMapper json) {
        Platform platform = forCommand("cli", "cli " + command, settings, clock, json, 2, false);
        platform.start();
        return platform;
    }

    /**
     * @param role    the process's role at the embedded server ("deliver", "cli")
     * @param purpose the pool's connections' name in {@code pg_stat_activity}
     */
    private static Platform forCommand(String role, String purpose, DatabaseSettings settings, Clock clock,
                                       ObjectMapper json, int maxConnections, boolean listening) {
        MetricRegistry metrics = new MetricRegistry();
        LifecycleEnvironment lifecycle = new LifecycleEnvironment(metrics);
        QuipuDatabase database = QuipuDatabase.open(settings, role);
        try {
            lifecycle.manage(released(database));
            SchemaMigrations.apply(database);
            ManagedDataSource pool = DatabaseSupport.dataSourceFactory(database, purpose, maxConnections)
                    .build(metrics, purpose);
            lifecycle.manage(pool);
            NotificationListener notifications = null;
            if (listening) {
                notifications = new NotificationListener(database);
                lifecycle.manage(notifications);
            }
            return new Platform(database, QuipuJdbi.configure(Jdbi.create(pool)), clock, json, metrics, lifecycle,
                    notifications, true);
        } catch (RuntimeException | Error e) {
            database.close();
            throw e;
        }
    }

    private static Managed released(QuipuDatabase database) {
        return new Managed() {
            @Override
            public void stop() {
                database.close();
            }
        };
    }

    /** Starts what a feature needs running while the process serves: after the platform's own parts. */
    public void manage(Managed managed) {
        if (ownLifecycle && !started.isEmpty()) {
            throw new IllegalStateException("a command's platform takes its managed parts before it starts");
        }
        lifecycle.manage(managed);
    }

    /** A command's platform: starts every managed part in the order given. The server's starts with Jetty. */
    public void start() {
        if (!ownLifecycle) {
            throw new IllegalStateException("the server's platform starts with the server");
        }
        for (LifeCycle part : lifecycle.getManagedObjects()) {
            try {
                part.start();
            } catch (Exception e) {
                close();
                throw new IllegalStateException("could not start " + part, e);
            }
            started.addFirst(part);
        }
    }

    /** A command's platform: stops what started, newest first, and releases the database last. */
    @Override
    public synchronized void close() {
        if (!ownLifecycle) {
            return;
        }
        for (LifeCycle part : List.copyOf(started)) {
            try {
                part.stop();
            } catch (Exception e) {
                LOG.warn("Stopping {} failed: {}", name(part), e.toString());
            }
            started.remove(part);
        }
        // A start that failed before the database's own part started still holds the database.
        database.close();
    }

    private static String name(LifeCycle part) {
        return part instanceof JettyManaged managed ? managed.getManaged().getClass().getSimpleName() : part.toString();
    }

    public QuipuDatabase database() {
        return database;
    }

    public Jdbi jdbi() {
        return jdbi;
    }

    public Clock clock() {
        return clock;
    }

    public ObjectMapper json() {
        return json;
    }

    public MetricRegistry metrics() {
        return metrics;
    }

    /** Where features register their {@code quipu_*} Prometheus metrics. */
    public PrometheusRegistry prometheus() {
        return prometheus;
    }

    public EventOutbox outbox() {
        return outbox;
    }

    public AuditLog audit() {
        return audit;
    }

    /** The LISTEN connection, to add channels to before the platform starts; an operator's platform has none. */
    public NotificationListener notifications() {
        if (notifications == null) {
            throw new IllegalStateException("an operator command's platform hears no notifications");
        }
        return notifications;
    }
}
