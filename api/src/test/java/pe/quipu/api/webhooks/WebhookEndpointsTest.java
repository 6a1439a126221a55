package pe.quipu.api.webhooks;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.api.testing.TestAccounts;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static pe.quipu.api.testing.ProblemAssert.assertProblem;

/**
 * The endpoints API (the spec's "Webhooks", contract §6): answers, validation, the plan's cap, rotation, ownership,
 * audit rows. Nothing is delivered here (no worker): the URLs resolve, through the test's DNS, to a public address.
 */
class WebhookEndpointsTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension().with("webhooks.workerEnabled", "false");

    private static final String JSON = "application/json";

    static {
        quipu.dns.set("hooks.example.com", "93.184.215.14");
        quipu.dns.set("other.example.com", "93.184.215.15");
        quipu.dns.set("internal.example.com", "10.1.2.3");
    }

    private HttpResponse<String> create(String key, String body) {
        return quipu.post("/v1/webhooks", key, JSON, body);
    }

    private JsonNode created(String key, String body) {
        HttpResponse<String> response = create(key, body);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(201);
        return quipu.body(response);
    }

    @Test
    void createAnswersTheEndpointWithItsSecretOnceAndLaterAnswersNeverShowIt() {
        String key = quipu.accounts.newKey(Scope.WEBHOOKS_MANAGE);
        HttpResponse<String> response = create(key,
                "{\"url\":\"https://hooks.example.com/quipu\",\"events\":[\"key.created\",\"key.revoked\",\"key.created\"]}");
        assertThat(response.statusCode()).isEqualTo(201);
        assertThat(response.headers().firstValue("Cache-Control")).hasValue("no-store");
        JsonNode endpoint = quipu.body(response);
        String id = endpoint.get("id").asText();
        assertThat(response.headers().firstValue("Location")).get().asString().endsWith("/v1/webhooks/" + id);
        assertThat(endpoint.get("url").asText()).isEqualTo("https://hooks.example.com/quipu");
        assertThat(endpoint.get("events")).extracting(JsonNode::asText).containsExactly("key.created", "key.revoked");
        assertThat(endpoint.get("active").asBoolean()).isTrue();
        assertThat(endpoint.get("disabledReason").isNull()).isTrue();
        assertThat(Instant.parse(endpoint.get("createdAt").asText())).isEqualTo(QuipuExtension.START);
        String secret = endpoint.get("secret").asText();
        assertThat(secret).startsWith("whsec_");
        assertThat(Base64.getDecoder().decode(secret.substring("whsec_".length()))).hasSize(32);

        JsonNode detail = quipu.body(quipu.get("/v1/webhooks/" + id, key));
        assertThat(detail.has("secret")).isFalse();
        assertThat(detail.get("events")).hasSize(2);
        JsonNode list = quipu.body(quipu.get("/v1/webhooks", key));
        assertThat(list.get("items")).hasSize(1);
        assertThat(list.get("items").get(0).get("id").asText()).isEqualTo(id);
        assertThat(list.get("items").get(0).has("secret")).isFalse();
        assertThat(quipu.body(quipu.get("/v1/webhooks/" + id + "/deliveries", key)).get("items")).isEmpty();
    }

    @Test
    void activeMayBeGivenAtCreation() {
        String key = quipu.accounts.newKey(Scope.WEBHOOKS_MANAGE);
        JsonNode endpoint = created(key,
                "{\"url\":\"https://hooks.example.com/a\",\"events\":[\"key.created\"],\"active\":false}");
        assertThat(endpoint.get("active").asBoolean()).isFalse();
    }

    @Test
    void badBodiesAreValidationErrorsNamingTheField() {
        String key = quipu.accounts.newKey(Scope.WEBHOOKS_MANAGE);
        assertThat(assertProblem(create(key, "{\"events\":[\"key.created\"]}"), 400, "validation_error")
                .get("detail").asText()).contains("url");
        assertThat(assertProblem(create(key, "{\"url\":\"https://hooks.example.com/\",\"events\":[]}"), 400,
                "validation_error").get("detail").asText()).contains("events");
        assertThat(assertProblem(create(key, "{\"url\":\"https://hooks.example.com/\",\"events\":[\"key.made\"]}"),
                400, "validation_error").get("detail").asText()).contains("unknown event 'key.made'");
        assertProblem(create(key, "{\"url\":\"https://hooks.example.com/\",\"events\":\"key.created\"}"), 400,
                "validation_error");
        assertProblem(create(key, "{\"url\":\"https://hooks.example.com/\",\"events\":[\"key.created\"],"
                + "\"active\":\"yes\"}"), 400, "validation_error");
        assertProblem(create(key, "{\"url\":\"https://hooks.example.com/\",\"events\":[\"key.created\"],"
                + "\"secret\":\"mine\"}"), 400, "validation_error");
        assertProblem(create(key, "not json"), 400, "validation_error");
        assertProblem(quipu.post("/v1/webhooks", key, "text/plain", "{}"), 415, "unsupported_media_type");
        assertThat(quipu.body(quipu.get("/v1/webhooks", key)).get("items")).isEmpty();
    }

    @Test
    void urlsBreakingTheRulesAreRefusedWithTheRule() {
        String key = quipu.accounts.newKey(Scope.WEBHOOKS_MANAGE);
        for (List<String> c : List.of(
                List.of("https://user:pw@hooks.example.com/", "user name or password"),
                List.of("https://hooks.example.com/#top", "fragment"),
                List.of("https://internal.example.com/", "resolves to a non-public address"),
                List.of("https://127.0.0.1/", "127.0.0.0/8"),
                List.of("https://169.254.169.254/latest/meta-data", "metadata"),
                List.of("https://2130706433/", "127.0.0.1"),
                List.of("https://nowhere.example.com/", "does not resolve"),
                List.of("ftp://hooks.example.com/", "ftp"))) {
            JsonNode problem = assertProblem(create(key,
                    "{\"url\":\"" + c.get(0) + "\",\"events\":[\"key.created\"]}"), 400, "validation_error");
            assertThat(problem.get("detail").asText()).as(c.get(0)).contains("url").contains(c.get(1));
        }
        assertThat(quipu.body(quipu.get("/v1/webhooks", key)).get("items")).isEmpty();
    }

    @Test
    void etlRunEventsAreForAdminAccountsOnly() {
        String key = quipu.accounts.newKey(Scope.WEBHOOKS_MANAGE);
        String body = "{\"url\":\"https://hooks.example.com/etl\",\"events\":[\"etl.run.succeeded\"]}";
        assertThat(assertProblem(create(key, body), 400, "validation_error").get("detail").asText())
                .contains("admin");
        UUID account = quipu.accounts.accountOf(key);
        quipu.database.jdbi().useHandle(h -> h.execute("update accounts set is_admin = true where id = ?", account));
        assertThat(created(key, body).get("events").get(0).asText()).isEqualTo("etl.run.succeeded");
    }

    @Test
    void thePlanCapsEndpointsAndFreeHasNone() {
        String free = quipu.accounts.newFreeKey(Scope.WEBHOOKS_MANAGE);
        assertThat(assertProblem(create(free, "{\"url\":\"https://hooks.example.com/\",\"events\":[\"key.created\"]}"),
                403, "forbidden_plan").get("detail").asText()).contains("Starter");

        String starter = quipu.accounts.newKeyOnPlan("starter", Scope.WEBHOOKS_MANAGE);
        JsonNode first = created(starter, "{\"url\":\"https://hooks.example.com/1\",\"events\":[\"key.created\"]}");
        assertProblem(create(starter, "{\"url\":\"https://hooks.example.com/2\",\"events\":[\"key.created\"]}"), 403,
                "forbidden_plan");
        // Inactive endpoints count too: delete one to make room.
        assertThat(quipu.patch("/v1/webhooks/" + first.get("id").asText(), starter, JSON, "{\"active\":false}")
                .statusCode()).isEqualTo(200);
        assertProblem(create(starter, "{\"url\":\"https://hooks.example.com/2\",\"events\":[\"key.created\"]}"), 403,
                "forbidden_plan");
        assertThat(quipu.request("DELETE", "/v1/webhooks/" + first.get("id").asText(), starter).statusCode())
                .isEqualTo(204);
        created(starter, "{\"url\":\"https://hooks.example.com/2\",\"events\":[\"key.created\"]}");
    }

    @Test
    void patchChangesWhatItNamesAndChecksANewUrl() {
        String key = quipu.accounts.newKey(Scope.WEBHOOKS_MANAGE);
        String id = created(key, "{\"url\":\"https://hooks.example.com/a\",\"events\":[\"key.created\"]}")
                .get("id").asText();
        quipu.clock.advance(Duration.ofMinutes(5));
        HttpResponse<String> patched = quipu.patch("/v1/webhooks/" + id, key, JSON,
                "{\"events\":[\"key.rotated\",\"subscription.updated\"],\"active\":false}");
        assertThat(patched.statusCode()).as(patched.body()).isEqualTo(200);
        JsonNode endpoint = quipu.body(patched);
        assertThat(endpoint.get("events")).extracting(JsonNode::asText)
                .containsExactly("key.rotated", "subscription.updated");
        assertThat(endpoint.get("active").asBoolean()).isFalse();
        assertThat(endpoint.get("url").asText()).isEqualTo("https://hooks.example.com/a");
        assertThat(endpoint.has("secret")).isFalse();
        assertThat(Instant.parse(endpoint.get("updatedAt").asText()))
                .isEqualTo(QuipuExtension.START.plus(Duration.ofMinutes(5)));

        assertThat(quipu.body(quipu.patch("/v1/webhooks/" + id, key, JSON,
                "{\"url\":\"https://other.example.com/b\"}")).get("url").asText())
                .isEqualTo("https://other.example.com/b");
        assertThat(assertProblem(quipu.patch("/v1/webhooks/" + id, key, JSON,
                "{\"url\":\"https://internal.example.com/\"}"), 400, "validation_error").get("detail").asText())
                .contains("resolves to a non-public address").doesNotContain("10.1.2.3");
        assertProblem(quipu.patch("/v1/webhooks/" + id, key, JSON, "{}"), 400, "validation_error");
        assertProblem(quipu.patch("/v1/webhooks/" + id, key, JSON, "{\"url\":null}"), 400, "validation_error");
        assertProblem(quipu.patch("/v1/webhooks/" + id, key, JSON, "{\"events\":[]}"), 400, "validation_error");
        // A refused change changes nothing.
        assertThat(quipu.body(quipu.get("/v1/webhooks/" + id, key)).get("url").asText())
                .isEqualTo("https://other.example.com/b");
    }

    @Test
    void rotationAnswersANewSecretAndShowsHowLongTheOldOneSigns() {
        String key = quipu.accounts.newKey(Scope.WEBHOOKS_MANAGE);
        JsonNode endpoint = created(key, "{\"url\":\"https://hooks.example.com/r\",\"events\":[\"key.created\"]}");
        String id = endpoint.get("id").asText();
        assertThat(endpoint.get("previousSecretExpiresAt").isNull()).isTrue();
        HttpResponse<String> rotated = quipu.post("/v1/webhooks/" + id + "/rotate", key, null, "");
        assertThat(rotated.statusCode()).as(rotated.body()).isEqualTo(200);
        JsonNode after = quipu.body(rotated);
        assertThat(after.get("secret").asText()).startsWith("whsec_").isNotEqualTo(endpoint.get("secret").asText());
        assertThat(Instant.parse(after.get("previousSecretExpiresAt").asText()))
                .isEqualTo(QuipuExtension.START.plus(Duration.ofHours(24)));
        JsonNode detail = quipu.body(quipu.get("/v1/webhooks/" + id, key));
        assertThat(detail.has("secret")).isFalse();
        assertThat(detail.get("previousSecretExpiresAt").isNull()).isFalse();
        quipu.clock.advance(Duration.ofHours(24));
        assertThat(quipu.body(quipu.get("/v1/webhooks/" + id, key)).get("previousSecretExpiresAt").isNull()).isTrue();
    }

    @Test
    void anotherAccountsEndpointIsNotFoundForEveryOperation() {
        String owner = quipu.accounts.newKey(Scope.WEBHOOKS_MANAGE);
        String other = quipu.accounts.newKey(Scope.WEBHOOKS_MANAGE);
        String id = created(owner, "{\"url\":\"https://hooks.example.com/o\",\"events\":[\"key.created\"]}")
                .get("id").asText();
        String path = "/v1/webhooks/" + id;
        assertProblem(quipu.get(path, other), 404, "not_found");
        assertProblem(quipu.patch(path, other, JSON, "{\"active\":false}"), 404, "not_found");
        assertProblem(quipu.request("DELETE", path, other), 404, "not_found");
        assertProblem(quipu.post(path + "/rotate", other, null, ""), 404, "not_found");
        assertProblem(quipu.post(path + "/test", other, null, ""), 404, "not_found");
        assertProblem(quipu.get(path + "/deliveries", other), 404, "not_found");
        assertProblem(quipu.get("/v1/webhooks/not-a-uuid", owner), 404, "not_found");
        assertProblem(quipu.get(path + "/deliveries/dlv_000000000000000000000000", owner), 404, "not_found");
        assertProblem(quipu.get(path + "/deliveries/nonsense", owner), 404, "not_found");
        assertThat(quipu.body(quipu.get(path, owner)).get("active").asBoolean()).isTrue();
    }

    @Test
    void deleteRemovesTheEndpoint() {
        String key = quipu.accounts.newKey(Scope.WEBHOOKS_MANAGE);
        String id = created(key, "{\"url\":\"https://hooks.example.com/d\",\"events\":[\"key.created\"]}")
                .get("id").asText();
        assertThat(quipu.request("DELETE", "/v1/webhooks/" + id, key).statusCode()).isEqualTo(204);
        assertProblem(quipu.get("/v1/webhooks/" + id, key), 404, "not_found");
        assertProblem(quipu.request("DELETE", "/v1/webhooks/" + id, key), 404, "not_found");
        assertThat(quipu.body(quipu.get("/v1/webhooks", key)).get("items")).isEmpty();
    }

    @Test
    void aTestEventNeedsAnActiveEndpoint() {
        String key = quipu.accounts.newKey(Scope.WEBHOOKS_MANAGE);
        String id = created(key,
                "{\"url\":\"https://hooks.example.com/t\",\"events\":[\"key.created\"],\"active\":false}")
                .get("id").asText();
        assertProblem(quipu.post("/v1/webhooks/" + id + "/test", key, null, ""), 409, "conflict");
        quipu.patch("/v1/webhooks/" + id, key, JSON, "{\"active\":true}");
        HttpResponse<String> test = quipu.post("/v1/webhooks/" + id + "/test", key, null, "");
        assertThat(test.statusCode()).isEqualTo(202);
        JsonNode sent = quipu.body(test);
        JsonNode delivery = quipu.body(quipu.get("/v1/webhooks/" + id + "/deliveries/"
                + sent.get("deliveryId").asText(), key));
        assertThat(delivery.get("eventId").asText()).isEqualTo(sent.get("eventId").asText());
        assertThat(delivery.get("eventType").asText()).isEqualTo("endpoint.test");
        assertThat(delivery.get("status").asText()).isEqualTo("pending");
        assertThat(delivery.get("attempts").asInt()).isZero();
        assertThat(delivery.get("attemptLog")).isEmpty();
    }

    @Test
    void theKeyNeedsTheWebhooksScope() {
        String key = quipu.accounts.newKey(Scope.RUC_READ);
        assertProblem(quipu.get("/v1/webhooks", key), 403, "forbidden_scope");
        assertProblem(create(key, "{\"url\":\"https://hooks.example.com/\",\"events\":[\"key.created\"]}"), 403,
                "forbidden_scope");
        assertProblem(quipu.get("/v1/webhooks", null), 401, "unauthorized");
        assertProblem(quipu.get("/v1/webhooks", "not-a-token"), 401, "unauthorized");
    }

    @Test
    void theAccountHoldersSessionManagesTheSameEndpointsAsTheAccountsKeys() {
        TestAccounts.Session session = quipu.accounts.newSession();
        String token = session.accessToken();
        // A new account is on free, which allows no endpoint: the session meets the plan's cap as a key would.
        assertProblem(create(token, "{\"url\":\"https://hooks.example.com/s\",\"events\":[\"endpoint.test\"]}"),
                403, "forbidden_plan");
        assertThat(quipu.task("set-plan", "email", session.email(), "plan", "starter").statusCode()).isEqualTo(200);

        JsonNode endpoint = created(token, "{\"url\":\"https://hooks.example.com/s\",\"events\":[\"endpoint.test\"]}");
        String id = endpoint.get("id").asText();
        assertThat(endpoint.get("secret").asText()).startsWith("whsec_");
        String key = quipu.accounts.issueKey(session.accountId(), Scope.WEBHOOKS_MANAGE);
        assertThat(quipu.body(quipu.get("/v1/webhooks", key)).get("items").get(0).get("id").asText()).isEqualTo(id);
        assertThat(quipu.body(quipu.patch("/v1/webhooks/" + id, token, JSON, "{\"active\":false}")).get("active")
                .asBoolean()).isFalse();
        HttpResponse<String> rotated = quipu.post("/v1/webhooks/" + id + "/rotate", token, null, "");
        assertThat(rotated.statusCode()).isEqualTo(200);
        assertThat(quipu.body(rotated).get("secret").asText()).isNotEqualTo(endpoint.get("secret").asText());
        assertThat(quipu.body(quipu.get("/v1/webhooks/" + id + "/deliveries", token)).get("items")).isEmpty();

        // Another account's session sees none of it.
        String stranger = quipu.accounts.newSession().accessToken();
        assertProblem(quipu.get("/v1/webhooks/" + id, stranger), 404, "not_found");
        assertThat(quipu.body(quipu.get("/v1/webhooks", stranger)).get("items")).isEmpty();

        // Once the account is deleted, its other still-unexpired access tokens are told it is gone.
        String other = quipu.body(quipu.accounts.login(session.email(), session.password())).get("accessToken").asText();
        assertThat(quipu.send(java.net.http.HttpRequest.newBuilder(quipu.uri("/v1/me"))
                .method("DELETE", java.net.http.HttpRequest.BodyPublishers.ofString(
                        "{\"confirmation\":\"BORRAR MI CUENTA\"}")), token, "Content-Type", JSON).statusCode())
                .isEqualTo(204);
        assertProblem(quipu.get("/v1/webhooks", other), 410, "gone");
        assertProblem(quipu.get("/v1/webhooks", token), 401, "unauthorized");
        assertProblem(quipu.get("/v1/webhooks", key), 401, "unauthorized");
    }

    @Test
    void everyChangeWritesAnAuditRow() {
        String key = quipu.accounts.newKey(Scope.WEBHOOKS_MANAGE);
        String id = created(key, "{\"url\":\"https://hooks.example.com/audit\",\"events\":[\"key.created\"]}")
                .get("id").asText();
        quipu.patch("/v1/webhooks/" + id, key, JSON, "{\"active\":false}");
        quipu.post("/v1/webhooks/" + id + "/rotate", key, null, "");
        quipu.request("DELETE", "/v1/webhooks/" + id, key);
        List<String> actions = quipu.database.jdbi().withHandle(h -> h.createQuery(
                        "select action from audit_log where account_id = :a and action like 'webhook.%' order by id")
                .bind("a", quipu.accounts.accountOf(key)).mapTo(String.class).list());
        assertThat(actions).containsExactly("webhook.created", "webhook.updated", "webhook.rotated",
                "webhook.deleted");
        String details = quipu.database.jdbi().withHandle(h -> h.createQuery(
                        "select string_agg(details::text, ' ') from audit_log where account_id = :a")
                .bind("a", quipu.accounts.accountOf(key)).mapTo(String.class).one());
        assertThat(details).doesNotContain("whsec_");
    }
}
