package pe.quipu.api.accounts;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.api.testing.TestAccounts;

import java.net.http.HttpResponse;
import java.sql.Connection;
import java.time.Duration;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static pe.quipu.api.testing.ProblemAssert.assertProblem;
import static pe.quipu.api.testing.ProblemAssert.withoutRequestId;

/**
 * Login throttling per email and client address over HTTP, with config.yml's numbers: 5 failures per 15 minutes.
 * (The per-address limit is lifted for the tests, where most requests come from 127.0.0.1; LoginThrottleTest covers
 * it. TargetedLockoutTest covers other addresses and the ceiling per email.)
 */
class LoginThrottlingTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    @Test
    void the_sixth_failure_within_15_minutes_is_429_with_retry_after_even_with_the_right_password() throws Exception {
        TestAccounts.Session session = quipu.accounts.newSession();
        for (int i = 0; i < 5; i++) {
            assertProblem(quipu.accounts.login(session.email(), "wrong password " + i), 401, "unauthorized");
        }

        HttpResponse<String> throttled = quipu.accounts.login(session.email(), "wrong password 5");
        assertProblem(throttled, 429, "rate_limited");
        assertThat(throttled.headers().firstValue("Retry-After")).hasValue("180");
        // Refused before the password is looked at: the right one gets the same answer, and no failure is logged.
        HttpResponse<String> right = quipu.accounts.login(session.email(), session.password());
        assertProblem(right, 429, "rate_limited");
        assertThat(right.headers().firstValue("Retry-After")).hasValue("180");
        assertThat(failedLogins(session.accountId())).isEqualTo(5);

        quipu.clock.advance(Duration.ofSeconds(179));
        assertThat(quipu.accounts.login(session.email(), session.password()).headers().firstValue("Retry-After"))
                .hasValue("1");
        quipu.clock.advance(Duration.ofSeconds(1));
        // One more try after 3 minutes; a success does not spend it, a failure does.
        assertThat(quipu.accounts.login(session.email(), session.password()).statusCode()).isEqualTo(200);
        assertThat(quipu.accounts.login(session.email(), session.password()).statusCode()).isEqualTo(200);
        assertProblem(quipu.accounts.login(session.email(), "wrong again"), 401, "unauthorized");
        assertProblem(quipu.accounts.login(session.email(), session.password()), 429, "rate_limited");
    }

    @Test
    void an_unknown_email_is_throttled_exactly_like_a_known_one() {
        String unknown = "nobody-" + UUID.randomUUID() + "@quipu.test";
        TestAccounts.Session known = quipu.accounts.newSession();
        for (String email : new String[]{unknown, known.email()}) {
            for (int i = 0; i < 5; i++) {
                assertProblem(quipu.accounts.login(email, "wrong password"), 401, "unauthorized");
            }
        }
        HttpResponse<String> forUnknown = quipu.accounts.login(unknown, "wrong password");
        HttpResponse<String> forKnown = quipu.accounts.login(known.email(), "wrong password");
        assertProblem(forUnknown, 429, "rate_limited");
        assertProblem(forKnown, 429, "rate_limited");
        assertThat(withoutRequestId(forUnknown.body())).isEqualTo(withoutRequestId(forKnown.body()));
        assertThat(forUnknown.headers().firstValue("Retry-After")).isEqualTo(forKnown.headers().firstValue("Retry-After"));
    }

    @Test
    void successful_logins_never_throttle_an_email() {
        TestAccounts.Session session = quipu.accounts.newSession();
        for (int i = 0; i < 12; i++) {
            assertThat(quipu.accounts.login(session.email(), session.password()).statusCode()).isEqualTo(200);
        }
        assertProblem(quipu.accounts.login(session.email(), "wrong password"), 401, "unauthorized");
    }

    private int failedLogins(UUID accountId) throws Exception {
        try (Connection c = quipu.database.connection()) {
            return Integer.parseInt(SessionsTest.single(c,
                    "select count(*) from audit_log where account_id = ? and action = 'login.failed'", accountId));
        }
    }
}
