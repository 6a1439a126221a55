package pe.quipu.api.webhooks;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.api.testing.TestAccounts;

import java.net.http.HttpResponse;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static pe.quipu.api.testing.ProblemAssert.assertProblem;
import static pe.quipu.api.webhooks.DeliveryTestKit.createEndpoint;
import static pe.quipu.api.webhooks.DeliveryTestKit.endpointBody;

/**
 * When a webhook URL's host is resolved, and what the answer tells: an account that may not add an endpoint makes
 * no lookup at all (its plan is checked first), a refusal never names the address a name resolved to (an internal
 * name's private address is the operator's, not the caller's), and a lookup that never ends does not hold the
 * request: it is answered within 5 seconds.
 */
class UrlResolutionTest {

    private static final String INTERNAL = "db.internal.hooks.test";
    private static final String HANGING = "black-hole.hooks.test";
    /** How long a lookup is waited for: README's 5 seconds. */
    private static final Duration BOUND = Duration.ofSeconds(5);

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension().with("webhooks.workerEnabled", "false");

    static {
        quipu.dns.set("hooks.example.com", "93.184.215.14");
        quipu.dns.set(INTERNAL, "10.20.30.40");
    }

    @AfterEach
    void releaseHangingLookups() {
        quipu.dns.release(HANGING);
    }

    @Test
    void an_account_whose_plan_has_no_endpoints_is_refused_before_its_host_is_resolved() {
        String free = quipu.accounts.newFreeKey(Scope.WEBHOOKS_MANAGE);
        int before = quipu.dns.lookups(INTERNAL);

        JsonNode problem = assertProblem(quipu.post("/v1/webhooks", free, "application/json",
                endpointBody("https://" + INTERNAL + "/hook", "key.created")), 403, "forbidden_plan");

        assertThat(problem.get("detail").asText()).contains("Starter").doesNotContain("10.20.30.40");
        assertThat(quipu.dns.lookups(INTERNAL) - before).as("lookups of the host").isZero();
    }

    @Test
    void an_account_at_its_cap_is_refused_before_its_host_is_resolved() {
        String starter = quipu.accounts.newKeyOnPlan("starter", Scope.WEBHOOKS_MANAGE);
        createEndpoint(quipu, starter, "https://hooks.example.com/one", "key.created");
        int before = quipu.dns.lookups(INTERNAL);

        assertProblem(quipu.post("/v1/webhooks", starter, "application/json",
                endpointBody("https://" + INTERNAL + "/hook", "key.created")), 403, "forbidden_plan");

        assertThat(quipu.dns.lookups(INTERNAL) - before).as("lookups of the host").isZero();
    }

    /** After a downgrade to a plan without endpoints, the endpoints stay listed, but their URL cannot change. */
    @Test
    void a_new_url_for_an_account_whose_plan_has_no_endpoints_is_refused_before_its_host_is_resolved() {
        TestAccounts.Session session = quipu.accounts.newSession();
        String key = quipu.accounts.issueKey(session.accountId(), Scope.WEBHOOKS_MANAGE);
        assertThat(quipu.task("set-plan", "email", session.email(), "plan", "starter").statusCode()).isEqualTo(200);
        String id = createEndpoint(quipu, key, "https://hooks.example.com/one", "key.created").get("id").asText();
        assertThat(quipu.task("set-plan", "email", session.email(), "plan", "free").statusCode()).isEqualTo(200);
        int before = quipu.dns.lookups(INTERNAL);

        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertProblem(quipu.patch("/v1/webhooks/" + id,
                key, "application/json", "{\"url\":\"https://" + INTERNAL + "/hook\"}"), 403, "forbidden_plan"));

        assertThat(quipu.dns.lookups(INTERNAL) - before).as("lookups of the host").isZero();
        assertThat(quipu.patch("/v1/webhooks/" + id, key, "application/json", "{\"events\":[\"key.revoked\"]}")
                .statusCode()).as("changes that resolve nothing").isEqualTo(200);
    }

    @Test
    void an_unknown_endpoints_new_url_is_not_resolved() {
        String key = quipu.accounts.newKey(Scope.WEBHOOKS_MANAGE);
        int before = quipu.dns.lookups(INTERNAL);

        assertProblem(quipu.patch("/v1/webhooks/0b7e8c1e-5b7a-4a59-a0a4-3f1f2f6c1d01", key, "application/json",
                "{\"url\":\"https://" + INTERNAL + "/hook\"}"), 404, "not_found");

        assertThat(quipu.dns.lookups(INTERNAL) - before).as("lookups of the host").isZero();
    }

    @Test
    void a_refusal_never_names_the_address_a_host_resolves_to() {
        String key = quipu.accounts.newKey(Scope.WEBHOOKS_MANAGE);
        String id = createEndpoint(quipu, key, "https://hooks.example.com/one", "key.created").get("id").asText();

        HttpResponse<String> created = quipu.post("/v1/webhooks", key, "application/json",
                endpointBody("https://" + INTERNAL + "/hook", "key.created"));
        HttpResponse<String> patched = quipu.patch("/v1/webhooks/" + id, key, "application/json",
                "{\"url\":\"https://" + INTERNAL + ":8443/hook\"}");

        for (HttpResponse<String> refused : java.util.List.of(created, patched)) {
            JsonNode problem = assertProblem(refused, 400, "validation_error");
            assertThat(problem.get("detail").asText())
                    .contains(INTERNAL).contains("resolves to a non-public address");
            assertThat(refused.body()).doesNotContain("10.20.30.40").doesNotContain("10.0.0.0")
                    .doesNotContain("private network");
        }
    }

    @Test
    void a_lookup_that_never_ends_is_answered_within_the_bound() {
        quipu.dns.hang(HANGING);
        String key = quipu.accounts.newKey(Scope.WEBHOOKS_MANAGE);

        long started = System.nanoTime();
        HttpResponse<String> answer = quipu.post("/v1/webhooks", key, "application/json",
                endpointBody("https://" + HANGING + "/hook", "key.created"));
        Duration took = Duration.ofNanos(System.nanoTime() - started);

        JsonNode problem = assertProblem(answer, 400, "validation_error");
        assertThat(problem.get("detail").asText()).contains(HANGING).contains("did not resolve within 5 seconds");
        assertThat(took).isBetween(BOUND.minusMillis(200), BOUND.plusSeconds(2));
        assertThat(quipu.body(quipu.get("/v1/webhooks", key)).get("items")).isEmpty();
    }
}
