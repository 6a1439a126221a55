package pe.quipu.api.accounts;

import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * Deletes what can no longer be used: expired refresh tokens, sessions left without any (never logged out, or
 * revoked), and denylist rows past their expiry (their tokens fail on {@code exp} anyway). Otherwise a client
 * that logs in on every run and never logs out would grow these tables forever. The application runs it daily;
 * every instance may, as the deletes are idempotent.
 */
public final class SessionCleanup {

    public static final Duration FIRST_DELAY = Duration.ofMinutes(2);
    public static final Duration EVERY = Duration.ofDays(1);
    private static final Logger LOG = LoggerFactory.getLogger(SessionCleanup.class);

    private final Jdbi jdbi;
    private final Clock clock;

    public SessionCleanup(Jdbi jdbi, Clock clock) {
        this.jdbi = jdbi;
        this.clock = clock;
    }

    /** What one cleanup deleted. */
    public record Deleted(int refreshTokens, int sessions, int denylistRows) {
    }

    public Deleted run() {
        Instant now = clock.instant();
        return jdbi.inTransaction(h -> {
            SessionRows sessions = h.attach(SessionRows.class);
            int tokens = sessions.deleteExpiredRefreshTokens(now);
            int ended = sessions.deleteEnded();
            int denied = sessions.deleteExpiredDenials(now);
            return new Deleted(tokens, ended, denied);
        });
    }

    /** {@link #run()}, saying in the log what went. */
    public void runAndLog() {
        Deleted deleted = run();
        if (deleted.refreshTokens() + deleted.sessions() + deleted.denylistRows() > 0) {
            LOG.info("Deleted {} expired refresh tokens, {} ended sessions, {} expired denylist rows",
                    deleted.refreshTokens(), deleted.sessions(), deleted.denylistRows());
        }
    }
}
