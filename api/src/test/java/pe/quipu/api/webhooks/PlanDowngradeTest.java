package pe.quipu.api.webhooks;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.api.testing.TestAccounts;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static pe.quipu.api.testing.ProblemAssert.assertProblem;

/**
 * A downgrade below an account's number of active endpoints (docs/decisions.md, Webhooks): the newest endpoints
 * beyond the new plan's count are set inactive with a reason and an audit row; they stay listed, and reactivating
 * one needs room under the cap.
 */
class PlanDowngradeTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension().with("webhooks.maintenanceInterval", "200ms");

    static {
        quipu.dns.set("hooks.example.com", "93.184.215.14");
    }

    @Test
    void endpointsBeyondTheNewPlansCountAreDeactivatedNewestFirst() {
        TestAccounts.Session session = quipu.accounts.newSession();
        String key = quipu.accounts.issueKey(session.accountId(), Scope.WEBHOOKS_MANAGE);
        assertThat(quipu.task("set-plan", "email", session.email(), "plan", "pro").statusCode()).isEqualTo(200);
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            quipu.clock.advance(Duration.ofSeconds(1));
            var created = quipu.post("/v1/webhooks", key, "application/json",
                    "{\"url\":\"https://hooks.example.com/" + i + "\",\"events\":[\"key.created\"]}");
            assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
            ids.add(quipu.body(created).get("id").asText());
        }
        assertThat(quipu.task("set-plan", "email", session.email(), "plan", "starter").statusCode()).isEqualTo(200);

        await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
            JsonNode items = quipu.body(quipu.get("/v1/webhooks", key)).get("items");
            assertThat(items).hasSize(3);
            assertThat(items.get(0).get("active").asBoolean()).isTrue();
            assertThat(items.get(1).get("active").asBoolean()).isFalse();
            assertThat(items.get(2).get("active").asBoolean()).isFalse();
            assertThat(items.get(2).get("disabledReason").asText()).contains("starter").contains("1 active");
        });
        assertThat(quipu.body(quipu.get("/v1/webhooks", key)).get("items").get(0).get("id").asText())
                .isEqualTo(ids.getFirst());
        assertProblem(quipu.patch("/v1/webhooks/" + ids.get(2), key, "application/json", "{\"active\":true}"), 403,
                "forbidden_plan");
        long audited = quipu.database.jdbi().withHandle(h -> h.createQuery(
                        "select count(*) from audit_log where account_id = :a and action = 'webhook.disabled'")
                .bind("a", session.accountId()).mapTo(Long.class).one());
        assertThat(audited).isEqualTo(2);

        // Room made by deactivating the active one: another may be reactivated, and its reason goes.
        assertThat(quipu.patch("/v1/webhooks/" + ids.getFirst(), key, "application/json", "{\"active\":false}")
                .statusCode()).isEqualTo(200);
        JsonNode reactivated = quipu.body(quipu.patch("/v1/webhooks/" + ids.get(2), key, "application/json",
                "{\"active\":true}"));
        assertThat(reactivated.get("active").asBoolean()).isTrue();
        assertThat(reactivated.get("disabledReason").isNull()).isTrue();
    }
}
