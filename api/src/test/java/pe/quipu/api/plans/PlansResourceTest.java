package pe.quipu.api.plans;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.testing.QuipuExtension;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static pe.quipu.api.testing.ProblemAssert.assertProblem;

/** {@code GET /v1/plans}: config.yml's plan table, public, in its order, free of quota. */
class PlansResourceTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension().with("plans.pro.rateLimitRpm", "900");

    @Test
    void anyone_reads_the_configured_plans_in_the_configurations_order_without_spending_anything() {
        HttpResponse<String> response = quipu.get("/v1/plans", null);

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Cache-Control")).hasValue("no-cache");
        assertThat(response.headers().firstValue("RateLimit-Limit")).isEmpty();
        JsonNode items = quipu.body(response).get("items");
        List<String> names = new ArrayList<>();
        items.forEach(plan -> names.add(plan.get("name").asText()));
        assertThat(names).containsExactly("free", "starter", "pro", "business", "enterprise");
        JsonNode free = items.get(0);
        assertThat(free.get("monthlyQuota").asLong()).isEqualTo(1000);
        assertThat(free.get("rateLimitRpm").asInt()).isEqualTo(60);
        assertThat(free.get("batchCap").asInt()).isEqualTo(10);
        assertThat(free.get("webhookEndpoints").asInt()).isZero();
        // The operator's numbers, not a copy of the defaults.
        assertThat(items.get(2).get("rateLimitRpm").asInt()).isEqualTo(900);
    }

    @Test
    void a_credential_is_not_needed_and_a_stray_one_changes_nothing() {
        String token = quipu.accounts.newSession().accessToken();

        assertThat(quipu.body(quipu.get("/v1/plans", token))).isEqualTo(quipu.body(quipu.get("/v1/plans", null)));
        assertProblem(quipu.post("/v1/plans", null, "application/json", "{}"), 405, "method_not_allowed");
    }
}
