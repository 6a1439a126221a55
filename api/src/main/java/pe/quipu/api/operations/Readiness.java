package pe.quipu.api.operations;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * Whether this instance should get traffic (contract §13): not before the server has started (the schema migrated),
 * nor while the start-up warm-up runs (the port serves clients meanwhile, slower: a load balancer waits, a single
 * instance's clients do not), nor while the database does not answer, nor from the moment a shutdown begins. Data
 * freshness plays no part: a stale registry must not take every instance out of a load balancer at once.
 */
public final class Readiness {

    /** Where the instance is in its life. */
    public enum Stage { STARTING, SERVING, DRAINING }

    /** The verdict and, when not ready, why. */
    public record Verdict(boolean ready, String reason) {
    }

    /** The database is asked at most this often; probes in between reuse the last answer. */
    static final Duration DATABASE_RECHECK = Duration.ofSeconds(1);

    private final BooleanSupplier databaseAnswers;
    private final LongSupplier nanoTime;
    private volatile Stage stage = Stage.STARTING;
    /** False from {@link #warmingUp} until the warm-up says it has ended. */
    private volatile boolean warm = true;
    private long checkedAt;
    private boolean databaseUp;
    private boolean checked;

    /**
     * @param databaseAnswers runs a trivial query; false (or an exception) when the database does not answer
     * @param nanoTime        a monotonic clock, for how long a database answer is reused
     */
    public Readiness(BooleanSupplier databaseAnswers, LongSupplier nanoTime) {
        this.databaseAnswers = databaseAnswers;
        this.nanoTime = nanoTime;
    }

    public Stage stage() {
        return stage;
    }

    /**
     * A warm-up will run: not ready until the returned callback is run (by the warm-up, once it has ended, whether
     * the JIT had settled, its time was up or it failed).
     */
    public Runnable warmingUp() {
        warm = false;
        return () -> warm = true;
    }

    /** The server has started: migrations applied, connectors open. */
    public void serving() {
        if (stage == Stage.STARTING) {
            stage = Stage.SERVING;
        }
    }

    /** A shutdown has begun: never ready again. */
    public void draining() {
        stage = Stage.DRAINING;
    }

    public Verdict verdict() {
        return switch (stage) {
            case STARTING -> new Verdict(false, "starting");
            case DRAINING -> new Verdict(false, "shutting down");
            case SERVING -> !warm ? new Verdict(false, "warming up")
                    : database() ? new Verdict(true, "ready") : new Verdict(false, "the database does not answer");
        };
    }

    private synchronized boolean database() {
        long now = nanoTime.getAsLong();
        if (!checked || now - checkedAt >= DATABASE_RECHECK.toNanos()) {
            boolean up;
            try {
                up = databaseAnswers.getAsBoolean();
            } catch (RuntimeException e) {
                up = false;
            }
            databaseUp = up;
            checkedAt = now;
            checked = true;
        }
        return databaseUp;
    }
}
