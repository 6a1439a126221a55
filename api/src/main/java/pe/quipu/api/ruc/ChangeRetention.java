package pe.quipu.api.ruc;

import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * Keeps the registry's change log to {@code changes.retention} (contract §11, default 400 days). One cut-off for
 * both sides: the history shows no change before it, even before the pruning has run, and the pruning deletes what
 * is before it. The application prunes shortly after start-up and then daily; every instance may, as the deletion is
 * idempotent. Time comes from the injected clock.
 *
 * <p>The pruning deletes in batches of {@link #BATCH} rows, each its own transaction, oldest first: a first run over
 * a log of millions of rows (retention shortened, or an instance that was off for long) holds no long transaction
 * and no lock on millions of rows, and the ETL's publications and the pruning never wait for each other for long.
 */
final class ChangeRetention {

    static final Duration FIRST_DELAY = Duration.ofMinutes(2);
    static final Duration EVERY = Duration.ofDays(1);
    /** Rows per transaction: about 45 ms of work each (docs/decisions.md, "Registry changes"). */
    static final int BATCH = 10_000;
    private static final Logger LOG = LoggerFactory.getLogger(ChangeRetention.class);

    private final Jdbi jdbi;
    private final Clock clock;
    private final Duration retention;
    private final int batch;

    ChangeRetention(Jdbi jdbi, Clock clock, Duration retention) {
        this(jdbi, clock, retention, BATCH);
    }

    ChangeRetention(Jdbi jdbi, Clock clock, Duration retention, int batch) {
        if (retention.isNegative()) {
            throw new IllegalArgumentException("a retention is not negative: " + retention);
        }
        this.jdbi = jdbi;
        this.clock = clock;
        this.retention = retention;
        this.batch = batch;
    }

    /** The oldest instant a change may have to be kept and shown now. */
    Instant cutoff() {
        return cutoff(clock.instant(), retention);
    }

    /**
     * {@code now} less {@code retention}, and never before the epoch: the log holds nothing older, and a retention of
     * millennia would otherwise name an instant PostgreSQL cannot hold. A change exactly at the cut-off is kept.
     */
    static Instant cutoff(Instant now, Duration retention) {
        if (retention.compareTo(Duration.between(Instant.EPOCH, now)) >= 0) {
            return Instant.EPOCH;
        }
        return now.minus(retention);
    }

    /**
     * Deletes the changes before the cut-off of now, batch after batch until none is left (or the thread is
     * interrupted, as a stop does); returns how many went.
     */
    long prune() {
        return prune(cutoff());
    }

    private long prune(Instant cutoff) {
        long deleted = 0;
        int last;
        do {
            last = jdbi.withExtension(ChangeLogRows.class, rows -> rows.prune(cutoff, batch));
            deleted += last;
        } while (last == batch && !Thread.currentThread().isInterrupted());
        return deleted;
    }

    /** {@link #prune()}, saying in the log what went. */
    void pruneAndLog() {
        Instant cutoff = cutoff();
        long deleted = prune(cutoff);
        if (deleted > 0) {
            LOG.info("Deleted {} registry changes older than {}", deleted, cutoff);
        }
    }
}
