package pe.quipu.api.accounts;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.api.testing.TestAccounts;
import pe.quipu.core.testing.MutableClock;

import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** The daily clean-up of what no session can use any more, on the test database, run by hand. */
class SessionCleanupTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    @Test
    void expired_refresh_tokens_ended_sessions_and_expired_denylist_rows_go_and_live_ones_stay() throws Exception {
        Instant start = quipu.clock.instant();
        // Never logs out: its refresh token lasts 30 days.
        TestAccounts.Session abandoned = quipu.accounts.newSession();
        TestAccounts.Session loggedOut = quipu.accounts.newSession();
        assertThat(quipu.post("/v1/auth/logout", loggedOut.accessToken(), null, "").statusCode()).isEqualTo(204);
        quipu.clock.set(start.plus(Duration.ofDays(29)));
        TestAccounts.Session live = quipu.accounts.newSession();
        UUID abandonedSession = sessionOf(abandoned.accountId());
        UUID liveSession = sessionOf(live.accountId());

        SessionCleanup cleanup = new SessionCleanup(quipu.database.jdbi(),
                new MutableClock(start.plus(Duration.ofDays(31))));
        SessionCleanup.Deleted deleted = cleanup.run();

        assertThat(deleted.refreshTokens()).isPositive();
        assertThat(count("select count(*) from sessions where id = ?", abandonedSession)).isZero();
        assertThat(count("select count(*) from refresh_tokens where session_id = ?", abandonedSession)).isZero();
        assertThat(count("select count(*) from sessions where id = ?", liveSession)).isOne();
        assertThat(count("select count(*) from refresh_tokens where session_id = ?", liveSession)).isOne();
        // The logout's denylist rows expired 16 minutes after it.
        assertThat(count("select count(*) from token_denylist where value = ?", sessionOfLogout(loggedOut))).isZero();
        quipu.clock.set(start.plus(Duration.ofDays(29)));
        assertThat(quipu.accounts.refresh(live.refreshToken()).statusCode()).isEqualTo(200);
    }

    private UUID sessionOf(UUID accountId) {
        return UUID.fromString(
                quipu.database.texts("select id from sessions where account_id = ?", accountId).getFirst());
    }

    /** The session id a logout denylisted, read from its audit row. */
    private String sessionOfLogout(TestAccounts.Session session) {
        return quipu.database.texts(
                "select details->>'sessionId' from audit_log where account_id = ? and action = 'logout'",
                session.accountId()).getFirst();
    }

    private long count(String sql, Object value) {
        return Long.parseLong(quipu.database.texts(sql, value instanceof UUID ? value : value.toString()).getFirst());
    }
}
