package pe.quipu.api.audit;

import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;

/**
 * Keeps the audit log to its retention (12 months, {@link AuditLog#RETENTION}): deletes older rows; the application
 * runs it shortly after start-up and then daily. Every instance may run it; the deletion is idempotent. The cut-off
 * comes from the injected clock.
 */
public final class AuditRetention {

    public static final Duration FIRST_DELAY = Duration.ofMinutes(1);
    public static final Duration EVERY = Duration.ofDays(1);
    private static final Logger LOG = LoggerFactory.getLogger(AuditRetention.class);

    private final Jdbi jdbi;
    private final AuditLog audit;

    public AuditRetention(Jdbi jdbi, AuditLog audit) {
        this.jdbi = jdbi;
        this.audit = audit;
    }

    /** Deletes the rows past retention now; returns how many went. */
    public int prune() {
        return jdbi.inTransaction(audit::prune);
    }

    /** {@link #prune()}, saying in the log what went. */
    public void pruneAndLog() {
        int deleted = prune();
        if (deleted > 0) {
            LOG.info("Deleted {} audit rows older than {}", deleted, audit.retentionCutoff());
        }
    }
}
