package pe.quipu.api.idempotency;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.auth.Scope;
import pe.quipu.core.ruc.Ruc;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.api.testing.TestAccounts;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static pe.quipu.api.testing.ProblemAssert.assertProblem;

/**
 * {@code Idempotency-Key} on the POSTs that create or send something, over HTTP: a retry replays the first answer and
 * does nothing again, on any instance; another request under the key is 422; the key expires after 24 h; the
 * database keeps neither the key nor the answer's secret in the clear.
 */
class IdempotencyTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension().with("webhooks.workerEnabled", "false");

    private static final String JSON = "application/json";
    private static final String KEY_BODY = "{\"name\":\"backend\",\"scopes\":[\"ruc:read\"]}";

    static {
        quipu.dns.set("hooks.example.com", "93.184.215.14");
    }

    private static String idempotencyKey() {
        return "\"" + UUID.randomUUID() + "\"";
    }

    private static HttpResponse<String> createKey(TestAccounts.Session session, String body, String idempotencyKey) {
        return idempotencyKey == null ? quipu.post("/v1/keys", session.accessToken(), JSON, body)
                : quipu.post("/v1/keys", session.accessToken(), JSON, body, "Idempotency-Key", idempotencyKey);
    }

    /** The same account with an access token of now (one lasts minutes, and the clock moves by hours here). */
    private static TestAccounts.Session fresh(TestAccounts.Session session) {
        JsonNode tokens = quipu.body(quipu.accounts.login(session.email(), session.password()));
        return new TestAccounts.Session(session.accountId(), session.email(), session.password(),
                tokens.get("accessToken").asText(), tokens.get("refreshToken").asText());
    }

    private static int keys(TestAccounts.Session session) {
        return quipu.body(quipu.get("/v1/keys", session.accessToken())).get("items").size();
    }

    @Test
    void a_retried_key_creation_replays_the_first_answer_and_creates_no_second_key() {
        TestAccounts.Session session = quipu.accounts.newSession();
        String idempotencyKey = idempotencyKey();

        HttpResponse<String> first = createKey(session, KEY_BODY, idempotencyKey);
        HttpResponse<String> retry = createKey(session, KEY_BODY, idempotencyKey);

        assertThat(first.statusCode()).as(first.body()).isEqualTo(201);
        assertThat(first.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(retry.headers().firstValue("Content-Type")).isEqualTo(first.headers().firstValue("Content-Type"));
        assertThat(retry.headers().firstValue("Cache-Control")).hasValue("no-store");
        assertThat(keys(session)).isEqualTo(1);
        // The replayed secret is the key that exists: it works.
        String secret = quipu.body(retry).get("key").asText();
        assertThat(quipu.get("/v1/usage", secret).statusCode()).isEqualTo(200);
    }

    @Test
    void another_instance_replays_it_too() {
        TestAccounts.Session session = quipu.accounts.newSession();
        String idempotencyKey = idempotencyKey();
        HttpResponse<String> first = createKey(session, KEY_BODY, idempotencyKey);

        HttpResponse<String> elsewhere = quipu.peer().post("/v1/keys", session.accessToken(), JSON, KEY_BODY,
                "Idempotency-Key", idempotencyKey);

        assertThat(elsewhere.statusCode()).isEqualTo(201);
        assertThat(elsewhere.body()).isEqualTo(first.body());
        assertThat(keys(session)).isEqualTo(1);
    }

    @Test
    void the_same_key_with_another_body_is_422_and_does_nothing() {
        TestAccounts.Session session = quipu.accounts.newSession();
        String idempotencyKey = idempotencyKey();
        createKey(session, KEY_BODY, idempotencyKey);

        HttpResponse<String> other = createKey(session, "{\"name\":\"other\",\"scopes\":[\"ruc:read\"]}",
                idempotencyKey);
        HttpResponse<String> otherPath = quipu.post("/v1/webhooks", session.accessToken(), JSON,
                "{\"url\":\"https://hooks.example.com/q\",\"events\":[\"key.created\"]}", "Idempotency-Key",
                idempotencyKey);

        assertProblem(other, 422, "idempotency_key_reused");
        assertThat(other.body()).contains("another request");
        assertProblem(otherPath, 422, "idempotency_key_reused");
        assertThat(keys(session)).isEqualTo(1);
    }

    @Test
    void without_the_header_each_post_creates_and_each_key_is_the_accounts_own() {
        TestAccounts.Session session = quipu.accounts.newSession();
        TestAccounts.Session other = quipu.accounts.newSession();
        String idempotencyKey = idempotencyKey();

        createKey(session, KEY_BODY, null);
        createKey(session, KEY_BODY, null);
        createKey(session, KEY_BODY, idempotencyKey);
        HttpResponse<String> sameKeyOtherAccount = createKey(other, KEY_BODY, idempotencyKey);

        assertThat(keys(session)).isEqualTo(3);
        assertThat(sameKeyOtherAccount.statusCode()).isEqualTo(201);
        assertThat(sameKeyOtherAccount.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(keys(other)).isEqualTo(1);
    }

    @Test
    void after_24_hours_the_key_runs_the_request_again() {
        TestAccounts.Session session = quipu.accounts.newSession();
        String idempotencyKey = idempotencyKey();
        createKey(session, KEY_BODY, idempotencyKey);
        quipu.clock.advance(Duration.ofHours(23));
        assertThat(createKey(fresh(session), KEY_BODY, idempotencyKey).headers().firstValue("Idempotent-Replayed"))
                .hasValue("true");

        quipu.clock.advance(Duration.ofHours(1).plusSeconds(1));
        TestAccounts.Session later = fresh(session);
        HttpResponse<String> again = createKey(later, KEY_BODY, idempotencyKey);

        assertThat(again.statusCode()).isEqualTo(201);
        assertThat(again.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(keys(later)).isEqualTo(2);
    }

    @Test
    void a_refusal_is_replayed_and_a_malformed_key_is_400() {
        TestAccounts.Session session = quipu.accounts.newSession();
        String idempotencyKey = idempotencyKey();
        String bad = "{\"name\":\"backend\",\"scopes\":[\"nope\"]}";

        HttpResponse<String> first = createKey(session, bad, idempotencyKey);
        HttpResponse<String> retry = createKey(session, bad, idempotencyKey);

        assertProblem(first, 400, "validation_error");
        assertProblem(retry, 400, "validation_error");
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        // (Non-ASCII never arrives as such: the HTTP client sends '?'. IdempotencyKeyRulesTest has that rule.)
        for (String malformed : List.of("\"\"", "\"has space\"", "\"" + "x".repeat(256) + "\"", "\"a\"b\"")) {
            HttpResponse<String> refused = createKey(session, KEY_BODY, malformed);
            assertThat(refused.statusCode()).as(malformed).isEqualTo(400);
            assertProblem(refused, 400, "validation_error");
        }
        assertThat(keys(session)).isZero();
    }

    @Test
    void webhooks_watchlists_and_a_test_event_are_done_once() {
        String key = quipu.accounts.newKey(Scope.WEBHOOKS_MANAGE, Scope.WATCHLISTS_MANAGE);
        String create = idempotencyKey();
        String body = "{\"url\":\"https://hooks.example.com/q\",\"events\":[\"key.created\"]}";
        HttpResponse<String> endpoint = quipu.post("/v1/webhooks", key, JSON, body, "Idempotency-Key", create);
        HttpResponse<String> again = quipu.post("/v1/webhooks", key, JSON, body, "Idempotency-Key", create);
        assertThat(endpoint.statusCode()).as(endpoint.body()).isEqualTo(201);
        assertThat(again.body()).isEqualTo(endpoint.body());
        assertThat(again.headers().firstValue("Location")).isEqualTo(endpoint.headers().firstValue("Location"));
        assertThat(quipu.body(quipu.get("/v1/webhooks", key)).get("items").size()).isEqualTo(1);

        String id = quipu.body(endpoint).get("id").asText();
        String test = idempotencyKey();
        HttpResponse<String> sent = quipu.post("/v1/webhooks/" + id + "/test", key, null, "", "Idempotency-Key", test);
        HttpResponse<String> resent = quipu.post("/v1/webhooks/" + id + "/test", key, null, "", "Idempotency-Key",
                test);
        assertThat(sent.statusCode()).as(sent.body()).isBetween(200, 299);
        assertThat(resent.body()).isEqualTo(sent.body());
        assertThat(quipu.database.texts("select count(*)::text from webhook_deliveries where endpoint_id = ?::uuid",
                id)).containsExactly("1");

        assertThat(quipu.put("/v1/watchlists/proveedores", key, JSON, "{\"rucs\":[]}").statusCode()).isEqualTo(201);
        String add = idempotencyKey();
        String rucs = "{\"rucs\":[\"" + Ruc.completing("2061890001").value() + "\"]}";
        HttpResponse<String> added = quipu.post("/v1/watchlists/proveedores/rucs", key, JSON, rucs,
                "Idempotency-Key", add);
        quipu.clock.advance(Duration.ofMinutes(5));
        HttpResponse<String> readded = quipu.post("/v1/watchlists/proveedores/rucs", key, JSON, rucs,
                "Idempotency-Key", add);
        assertThat(added.statusCode()).as(added.body()).isEqualTo(200);
        assertThat(readded.body()).isEqualTo(added.body());
        assertThat(quipu.body(quipu.get("/v1/watchlists/proveedores", key)).get("updatedAt").asText())
                .isEqualTo(quipu.body(added).get("updatedAt").asText());
    }

    @Test
    void the_database_holds_neither_the_key_nor_the_secret_in_the_clear() {
        TestAccounts.Session session = quipu.accounts.newSession();
        String value = UUID.randomUUID().toString();
        JsonNode created = quipu.body(createKey(session, KEY_BODY, "\"" + value + "\""));
        String secret = created.get("key").asText();

        List<String> rows = quipu.database.texts("select encode(key_id, 'hex') || ' ' || encode(answer, 'hex')"
                + " from idempotency_keys where account_id = ?::uuid", session.accountId().toString());

        assertThat(rows).hasSize(1);
        assertThat(rows.getFirst())
                .doesNotContain(HexFormat.of().formatHex(value.getBytes(StandardCharsets.US_ASCII)))
                .doesNotContain(HexFormat.of().formatHex(secret.getBytes(StandardCharsets.US_ASCII)))
                .doesNotContain(HexFormat.of().formatHex(secret.substring(8, 20).getBytes(StandardCharsets.US_ASCII)));
    }
}
