package pe.quipu.api.accounts;

import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import pe.quipu.api.support.MutableClock;
import pe.quipu.api.support.TestQuipu;

import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** The daily clean-up of what no session can use any more, on the test database, run by hand. */
class SessionCleanupTest {

    private final TestQuipu quipu = TestQuipu.get();

    @Test
    void expired_refresh_tokens_ended_sessions_and_expired_denylist_rows_go_and_live_ones_stay() throws Exception {
        Instant start = quipu.clock.instant();
        TestQuipu.Session abandoned = quipu.newSession(); // never logs out: its refresh token lasts 30 days
        TestQuipu.Session loggedOut = quipu.newSession();
        assertThat(quipu.post("/v1/auth/logout", loggedOut.accessToken(), null, "").statusCode()).isEqualTo(204);
        TestQuipu.Session live;
        try {
            quipu.clock.set(start.plus(Duration.ofDays(29)));
            live = quipu.newSession();
        } finally {
            quipu.clock.set(start);
        }
        UUID abandonedSession = sessionOf(abandoned.accountId());
        UUID liveSession = sessionOf(live.accountId());

        SessionCleanup cleanup = new SessionCleanup(Jdbi.create(quipu::connection),
                new MutableClock(start.plus(Duration.ofDays(31))));
        SessionCleanup.Deleted deleted = cleanup.run();

        assertThat(deleted.refreshTokens()).isPositive();
        assertThat(count("select count(*) from sessions where id = ?", abandonedSession)).isZero();
        assertThat(count("select count(*) from refresh_tokens where session_id = ?", abandonedSession)).isZero();
        assertThat(count("select count(*) from sessions where id = ?", liveSession)).isOne();
        assertThat(count("select count(*) from refresh_tokens where session_id = ?", liveSession)).isOne();
        // The logout's denylist rows expired 16 minutes after it.
        assertThat(count("select count(*) from token_denylist where value = ?", sessionOfLogout(loggedOut))).isZero();
        try {
            quipu.clock.set(start.plus(Duration.ofDays(29)));
            assertThat(quipu.refresh(live.refreshToken()).statusCode()).isEqualTo(200);
        } finally {
            quipu.clock.set(start);
        }
    }

    private UUID sessionOf(UUID accountId) {
        return UUID.fromString(quipu.texts("select id from sessions where account_id = ?", accountId).getFirst());
    }

    /** The session id a logout denylisted, read from its audit row. */
    private String sessionOfLogout(TestQuipu.Session session) {
        return quipu.texts("select details->>'sessionId' from audit_log where account_id = ? and action = 'logout'",
                session.accountId()).getFirst();
    }

    private long count(String sql, Object value) {
        return Long.parseLong(quipu.texts(sql, value instanceof UUID ? value : value.toString()).getFirst());
    }
}
