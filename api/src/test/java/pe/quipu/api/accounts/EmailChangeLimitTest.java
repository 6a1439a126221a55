package pe.quipu.api.accounts;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.api.testing.TestAccounts;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static pe.quipu.api.testing.ProblemAssert.assertProblem;

/**
 * {@code PATCH /v1/me} changes the account's email at most 10 times an hour (config.yml, auth.emailChangeThrottle):
 * each 409 says that another account holds the address, so unlimited tries would list who has an account, or let
 * one account hunt for addresses to squat.
 */
class EmailChangeLimitTest {

    private static final String JSON = "application/json";

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    @Test
    void ten_email_changes_an_hour_conflicts_included_then_429_with_retry_after() {
        TestAccounts.Session session = quipu.accounts.newSession();
        TestAccounts.Session other = quipu.accounts.newSession();
        for (int i = 0; i < 7; i++) {
            assertThat(changeEmail(session, fresh()).statusCode()).isEqualTo(200);
        }
        for (int i = 0; i < 3; i++) {
            assertProblem(changeEmail(session, other.email()), 409, "conflict");
        }

        HttpResponse<String> limited = changeEmail(session, fresh());
        assertProblem(limited, 429, "rate_limited");
        // One more change every 6 minutes.
        assertThat(limited.headers().firstValue("Retry-After")).hasValue("360");
        HttpResponse<String> probe = changeEmail(session, other.email());
        assertProblem(probe, 429, "rate_limited");
        assertThat(probe.body()).doesNotContain(other.email());

        quipu.clock.advance(Duration.ofMinutes(6));
        assertThat(changeEmail(session, fresh()).statusCode()).isEqualTo(200);
        assertProblem(changeEmail(session, fresh()), 429, "rate_limited");
    }

    @Test
    void what_changes_no_email_is_not_limited() {
        TestAccounts.Session session = quipu.accounts.newSession();
        String email = session.email();
        for (int i = 0; i < 10; i++) {
            email = fresh();
            assertThat(changeEmail(session, email).statusCode()).isEqualTo(200);
        }
        assertProblem(changeEmail(session, fresh()), 429, "rate_limited");

        assertThat(quipu.patch("/v1/me", session.accessToken(), JSON, "{\"nombre\":\"Otro Nombre\"}").statusCode())
                .isEqualTo(200);
        assertThat(quipu.patch("/v1/me", session.accessToken(), JSON, "{\"usageAlertPercent\":50}").statusCode())
                .isEqualTo(200);
        // The address it already has changes nothing, so it is not an attempt.
        assertThat(changeEmail(session, email).statusCode()).isEqualTo(200);
        // A malformed address is refused before it could be one.
        assertProblem(changeEmail(session, "not an email"), 400, "validation_error");
    }

    @Test
    void each_account_has_its_own_allowance() {
        TestAccounts.Session spent = quipu.accounts.newSession();
        for (int i = 0; i < 10; i++) {
            assertThat(changeEmail(spent, fresh()).statusCode()).isEqualTo(200);
        }
        assertProblem(changeEmail(spent, fresh()), 429, "rate_limited");

        TestAccounts.Session another = quipu.accounts.newSession();
        assertThat(changeEmail(another, fresh()).statusCode()).isEqualTo(200);
    }

    private static HttpResponse<String> changeEmail(TestAccounts.Session session, String email) {
        return quipu.patch("/v1/me", session.accessToken(), JSON, "{\"email\":\"" + email + "\"}");
    }

    private static String fresh() {
        return "moved-" + UUID.randomUUID() + "@quipu.test";
    }
}
