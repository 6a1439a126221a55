package pe.quipu.api.accounts;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.testing.JvmCpu;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.api.testing.TestAccounts;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A login for an unknown email must cost what a wrong password costs, one Argon2 verification, or the answer's
 * timing tells which emails have accounts. Wall-clock time on a shared machine is too noisy to compare; the CPU
 * time this JVM's threads spend on a request is not (waiting for a core is not counted), and Argon2 with 19 MiB
 * and 2 passes costs tens of milliseconds of it, far above what the rest of a login costs. Every thread of the JVM
 * is counted (by {@link JvmCpu}, so that a thread ending meanwhile takes nothing away), and work that other
 * threads do meanwhile (the application's background tasks, a failed login's follow-ups) only ever adds to a run:
 * the least of the interleaved runs is each kind's own cost. (Medians failed once in a full suite: 252 ms for a
 * wrong password against 97 ms for an unknown email, which alone measure alike.)
 */
class LoginTimingTest {

    private static final int RUNS = 7;

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    @Test
    void a_login_for_an_unknown_email_runs_a_password_verification_like_a_wrong_password() {
        // Accounts of their own, each failing fewer times than the per-email throttle allows.
        List<TestAccounts.Session> accounts = List.of(quipu.accounts.newSession(), quipu.accounts.newSession(),
                quipu.accounts.newSession(), quipu.accounts.newSession());
        List<Long> wrongPassword = new ArrayList<>();
        List<Long> unknownEmail = new ArrayList<>();
        List<Long> noVerification = new ArrayList<>();
        for (int run = -1; run < RUNS; run++) {
            TestAccounts.Session account = accounts.get((run + 1) % accounts.size());
            long wrong = cpu(() -> quipu.accounts.login(account.email(), "wrong password"), 401);
            long unknown = cpu(() -> quipu.accounts.login("nobody-" + UUID.randomUUID() + "@quipu.test",
                    "wrong password"), 401);
            // The same request but for a missing member: refused before any verification.
            long none = cpu(() -> quipu.post("/v1/auth/login", null, "application/json",
                    "{\"email\":\"" + account.email() + "\"}"), 400);
            if (run >= 0) { // the first round only warms up
                wrongPassword.add(wrong);
                unknownEmail.add(unknown);
                noVerification.add(none);
            }
        }

        long verification = least(wrongPassword);
        // The measurement tells a verification from none (otherwise the next assertion would prove nothing)...
        assertThat(least(noVerification)).as("CPU ns of a login without verification, vs %s with", verification)
                .isLessThan(verification * 3 / 10);
        // ...and an unknown email pays for one.
        assertThat(least(unknownEmail)).as("CPU ns of a login for an unknown email, vs %s for a wrong password",
                verification).isGreaterThan(verification * 6 / 10);
    }

    /** CPU time all of this JVM's threads spent while one request was sent and answered. */
    private long cpu(Supplier<HttpResponse<String>> request, int expectedStatus) {
        JvmCpu.Spent<HttpResponse<String>> spent = JvmCpu.spentDuring(request);
        assertThat(spent.result().statusCode()).as(spent.result().body()).isEqualTo(expectedStatus);
        return spent.nanos();
    }

    private static long least(List<Long> values) {
        return values.stream().mapToLong(Long::longValue).min().orElseThrow();
    }
}
