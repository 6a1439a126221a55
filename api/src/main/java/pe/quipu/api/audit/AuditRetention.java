package pe.quipu.api.audit;

import io.dropwizard.lifecycle.Managed;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import pe.quipu.core.audit.AuditLog;

import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Keeps the audit log to its retention (12 months, {@link AuditLog#RETENTION}): deletes older rows shortly after
 * start-up and then daily. Every instance may run it; the deletion is idempotent. The cut-off comes from the
 * injected clock.
 */
public final class AuditRetention implements Managed {

    private static final Duration FIRST_DELAY = Duration.ofMinutes(1);
    private static final Duration EVERY = Duration.ofDays(1);
    private static final Logger LOG = LoggerFactory.getLogger(AuditRetention.class);

    private final Jdbi jdbi;
    private final AuditLog audit;
    private ScheduledExecutorService scheduler;

    public AuditRetention(Jdbi jdbi, AuditLog audit) {
        this.jdbi = jdbi;
        this.audit = audit;
    }

    @Override
    public void start() {
        scheduler = Executors.newSingleThreadScheduledExecutor(
                Thread.ofPlatform().daemon().name("quipu-audit-retention").factory());
        scheduler.scheduleWithFixedDelay(this::pruneQuietly, FIRST_DELAY.toMillis(), EVERY.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    @Override
    public void stop() throws InterruptedException {
        if (scheduler != null) {
            scheduler.shutdownNow();
            scheduler.awaitTermination(10, TimeUnit.SECONDS);
        }
    }

    /** Deletes the rows past retention now; returns how many went. */
    public int prune() throws SQLException {
        return jdbi.inTransaction(h -> audit.prune(h.getConnection()));
    }

    private void pruneQuietly() {
        try {
            int deleted = prune();
            if (deleted > 0) {
                LOG.info("Deleted {} audit rows older than {}", deleted, audit.retentionCutoff());
            }
        } catch (Exception e) {
            // Tried again tomorrow; an exception would end the schedule.
            LOG.warn("Could not prune the audit log: {}", e.getMessage());
        }
    }
}
