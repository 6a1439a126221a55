package pe.quipu.api.accounts;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.api.testing.TestAccounts;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static pe.quipu.api.testing.ProblemAssert.assertProblem;

/**
 * The daily signup cap per client address, and the per-account limits on key and webhook endpoint operations,
 * configured low here. Every request of a test comes from 127.0.0.1, so the signup test runs
 * last: the others' sessions spend signups of that address.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SignupAndKeyThrottleTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension()
            // The key test waits 20 minutes with one access token.
            .with("auth.accessTokenLifetime", "1h")
            .with("auth.signupThrottle.limit", "4")
            .with("auth.signupThrottle.period", "1d")
            .with("keys.operationThrottle.limit", "3")
            .with("keys.operationThrottle.period", "1h")
            .with("webhooks.operationThrottle.limit", "3")
            .with("webhooks.operationThrottle.period", "1h");

    @Test
    @Order(1)
    void key_operations_past_the_accounts_limit_are_429_with_retry_after_and_other_accounts_are_unaffected() {
        TestAccounts.Session session = quipu.accounts.newSession();
        String created = null;
        for (int i = 0; i < 2; i++) {
            HttpResponse<String> response = createKey(session);
            assertThat(response.statusCode()).as(response.body()).isEqualTo(201);
            created = quipu.body(response).get("id").asText();
        }
        assertThat(quipu.request("DELETE", "/v1/keys/" + created, session.accessToken()).statusCode()).isEqualTo(204);

        HttpResponse<String> refused = createKey(session);
        assertProblem(refused, 429, "rate_limited");
        // 3 an hour, refilled evenly: one more every 20 minutes.
        assertThat(refused.headers().firstValue("Retry-After")).hasValue("1200");
        assertProblem(quipu.request("POST", "/v1/keys/" + created + "/rotate", session.accessToken()), 429,
                "rate_limited");

        quipu.clock.advance(Duration.ofMinutes(20));
        assertThat(createKey(session).statusCode()).isEqualTo(201);
        assertProblem(createKey(session), 429, "rate_limited");
    }

    @Test
    @Order(2)
    void webhook_endpoint_operations_past_the_accounts_limit_are_429_with_retry_after() {
        String key = quipu.accounts.newKeyOnPlan("pro", Scope.WEBHOOKS_MANAGE);
        String other = quipu.accounts.newKeyOnPlan("pro", Scope.WEBHOOKS_MANAGE);
        String unknown = "/v1/webhooks/" + UUID.randomUUID();
        // Counted whatever their outcome: here 404s for an endpoint that does not exist.
        assertProblem(quipu.request("DELETE", unknown, key), 404, "not_found");
        assertProblem(quipu.request("POST", unknown + "/rotate", key), 404, "not_found");
        assertProblem(quipu.request("POST", unknown + "/test", key), 404, "not_found");

        HttpResponse<String> refused = quipu.patch(unknown, key, "application/json", "{\"active\":false}");
        assertProblem(refused, 429, "rate_limited");
        assertThat(refused.headers().firstValue("Retry-After")).hasValue("1200");
        assertProblem(quipu.post("/v1/webhooks", key, "application/json",
                "{\"url\":\"https://example.com/hook\",\"events\":[\"key.created\"]}"), 429, "rate_limited");
        assertProblem(quipu.request("POST", unknown + "/deliveries/dlv_000000000000000000000000/retry", key), 429,
                "rate_limited");
        // Reading is not limited, nor is another account.
        assertThat(quipu.get("/v1/webhooks", key).statusCode()).isEqualTo(200);
        assertProblem(quipu.request("DELETE", unknown, other), 404, "not_found");
    }

    @Test
    @Order(3)
    void signups_past_the_daily_cap_of_an_address_are_429_with_retry_after() {
        // A day after whatever the tests before spent: the address's allowance is whole again.
        quipu.clock.advance(Duration.ofDays(10));
        for (int i = 0; i < 4; i++) {
            assertThat(signup().statusCode()).isEqualTo(201);
        }
        HttpResponse<String> refused = signup();
        JsonNode problem = assertProblem(refused, 429, "rate_limited");
        // 4 a day, refilled evenly: one more every 6 hours.
        assertThat(refused.headers().firstValue("Retry-After")).hasValue("21600");
        assertThat(problem.get("detail").asText()).contains("signups from this address");

        quipu.clock.advance(Duration.ofHours(6));
        assertThat(signup().statusCode()).isEqualTo(201);
        assertProblem(signup(), 429, "rate_limited");
    }

    private static HttpResponse<String> createKey(TestAccounts.Session session) {
        return quipu.post("/v1/keys", session.accessToken(), "application/json",
                "{\"name\":\"ci\",\"scopes\":[\"ruc:read\"]}");
    }

    private static HttpResponse<String> signup() {
        return quipu.post("/v1/auth/signup", null, "application/json",
                "{\"email\":\"cap-" + UUID.randomUUID() + "@quipu.test\",\"password\":\"0123456789\",\"nombre\":\"Cap\"}");
    }
}
