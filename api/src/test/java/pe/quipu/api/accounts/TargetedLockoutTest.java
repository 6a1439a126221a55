package pe.quipu.api.accounts;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.testing.QuipuClient;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.api.testing.TestAccounts;

import java.net.http.HttpResponse;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static pe.quipu.api.testing.ProblemAssert.assertProblem;
import static pe.quipu.api.testing.ProblemAssert.withoutRequestId;

/**
 * Someone who knows an account's email cannot keep its owner out by failing logins: failures are counted per email
 * and client address, so the attacker's address is throttled and the owner's is not; an attacker who rotates
 * addresses meets a ceiling per email, which slows them down but spares the addresses the account has logged in
 * from before (config.yml's numbers: 5 failures per 15 minutes per email and address, 20 per hour per email).
 * The tests' addresses are loopback ones (127.0.0.0/8); the owner signs up and logs in from 127.0.0.1.
 */
class TargetedLockoutTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    @Test
    void an_attacker_failing_every_3_minutes_keeps_their_own_address_throttled_and_the_owner_logs_in() {
        TestAccounts.Session owner = quipu.accounts.newSession();
        QuipuClient attacker = quipu.from("127.0.5.1");
        for (int i = 0; i < 5; i++) {
            assertProblem(login(attacker, owner.email(), "guess " + i), 401, "unauthorized");
        }
        HttpResponse<String> throttled = login(attacker, owner.email(), "guess 5");
        assertProblem(throttled, 429, "rate_limited");
        assertThat(throttled.headers().firstValue("Retry-After")).hasValue("180");

        for (int round = 0; round < 10; round++) {
            quipu.clock.advance(Duration.ofMinutes(3));
            assertProblem(login(attacker, owner.email(), "guess again " + round), 401, "unauthorized");
            assertProblem(login(attacker, owner.email(), "and again " + round), 429, "rate_limited");
            // The owner, from their usual address and from one they never used, is not held back.
            assertThat(login(quipu, owner.email(), owner.password()).statusCode()).isEqualTo(200);
            assertThat(login(quipu.from("127.0.5.2"), owner.email(), owner.password()).statusCode()).isEqualTo(200);
        }
    }

    @Test
    void an_attacker_rotating_addresses_meets_the_ceiling_per_email_which_spares_the_owners_usual_address() {
        TestAccounts.Session owner = quipu.accounts.newSession();
        for (int i = 0; i < 20; i++) {
            assertProblem(login(quipu.from("127.0.6." + (i + 1)), owner.email(), "guess " + i), 401, "unauthorized");
        }
        HttpResponse<String> ceiling = login(quipu.from("127.0.6.21"), owner.email(), "guess 20");
        assertProblem(ceiling, 429, "rate_limited");
        assertThat(ceiling.headers().firstValue("Retry-After")).hasValue("180");
        // An address the account never logged in from is held back too, even with the right password: nothing tells
        // it from the attacker's next one.
        assertProblem(login(quipu.from("127.0.6.200"), owner.email(), owner.password()), 429, "rate_limited");

        // The address the owner logged in from is spared, and still has its own allowance of failures.
        assertThat(login(quipu, owner.email(), owner.password()).statusCode()).isEqualTo(200);
        assertProblem(login(quipu, owner.email(), "a typo"), 401, "unauthorized");
        assertThat(login(quipu, owner.email(), owner.password()).statusCode()).isEqualTo(200);

        // One more try per email every 3 minutes, from anywhere.
        quipu.clock.advance(Duration.ofMinutes(3));
        assertProblem(login(quipu.from("127.0.6.22"), owner.email(), "guess 21"), 401, "unauthorized");
        assertProblem(login(quipu.from("127.0.6.23"), owner.email(), "guess 22"), 429, "rate_limited");
    }

    @Test
    void an_email_without_an_account_meets_the_same_ceiling() {
        String nobody = "nobody-" + java.util.UUID.randomUUID() + "@quipu.test";
        TestAccounts.Session someone = quipu.accounts.newSession();
        for (String email : new String[]{nobody, someone.email()}) {
            for (int i = 0; i < 20; i++) {
                assertProblem(login(quipu.from("127.0.7." + (i + 1)), email, "guess " + i), 401, "unauthorized");
            }
        }
        HttpResponse<String> forNobody = login(quipu.from("127.0.7.30"), nobody, "guess");
        HttpResponse<String> forSomeone = login(quipu.from("127.0.7.30"), someone.email(), "guess");
        assertProblem(forNobody, 429, "rate_limited");
        assertProblem(forSomeone, 429, "rate_limited");
        assertThat(withoutRequestId(forNobody.body())).isEqualTo(withoutRequestId(forSomeone.body()));
        assertThat(forNobody.headers().firstValue("Retry-After")).isEqualTo(forSomeone.headers().firstValue("Retry-After"));
    }

    private static HttpResponse<String> login(QuipuClient from, String email, String password) {
        return from.post("/v1/auth/login", null, "application/json",
                "{\"email\":\"" + email + "\",\"password\":\"" + password + "\"}");
    }
}
