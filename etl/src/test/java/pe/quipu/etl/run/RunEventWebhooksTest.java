package pe.quipu.etl.run;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.api.testing.WebhookReceiver;
import pe.quipu.etl.testing.EtlRun;
import pe.quipu.etl.testing.EtlRunner;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static pe.quipu.api.testing.ProblemAssert.assertProblem;

/**
 * {@code etl.run.*} events are the operator's: only accounts with admin rights may subscribe to them, and when the
 * ETL runs they are delivered to those accounts' endpoints, and to no one else's.
 */
class RunEventWebhooksTest {

    private static final String RUN_EVENTS = "[\"etl.run.started\",\"etl.run.succeeded\"]";

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension().with("webhooks.allowPrivateNetworks", "true");
    private static final EtlRunner etl = new EtlRunner(quipu.clock, quipu.bcrp, quipu.database);
    private static final WebhookReceiver receiver = WebhookReceiver.start();

    @AfterAll
    static void stop() {
        receiver.close();
    }

    @Test
    void an_account_without_admin_rights_cannot_subscribe_to_etl_run_events() {
        String key = quipu.accounts.newKey(Scope.WEBHOOKS_MANAGE);

        assertProblem(quipu.post("/v1/webhooks", key, "application/json",
                        "{\"url\":\"" + receiver.url("/refused") + "\",\"events\":[\"etl.run.succeeded\"]}"),
                400, "validation_error");
        assertProblem(quipu.post("/v1/webhooks", key, "application/json",
                        "{\"url\":\"" + receiver.url("/refused") + "\",\"events\":[\"key.created\",\"etl.run.failed\"]}"),
                400, "validation_error");
        // Nor add them to an endpoint it has.
        String id = create(key, "/refused", "[\"key.created\"]");
        assertProblem(quipu.patch("/v1/webhooks/" + id, key, "application/json",
                "{\"events\":[\"etl.run.started\"]}"), 400, "validation_error");

        JsonNode list = quipu.body(quipu.get("/v1/webhooks", key));
        assertThat(list.get("items")).hasSize(1);
        assertThat(list.get("items").get(0).get("events").toString()).isEqualTo("[\"key.created\"]");
    }

    @Test
    void an_etl_run_is_announced_to_admin_accounts_endpoints_only() throws IOException {
        String adminKey = quipu.accounts.newKey(Scope.WEBHOOKS_MANAGE);
        grantAdmin(adminKey);
        String adminEndpoint = create(adminKey, "/admin", RUN_EVENTS);
        // An account that subscribed while it had admin rights, and lost them: it is sent nothing.
        String formerKey = quipu.accounts.newKey(Scope.WEBHOOKS_MANAGE);
        grantAdmin(formerKey);
        String formerEndpoint = create(formerKey, "/former-admin", RUN_EVENTS);
        quipu.database.jdbi().useHandle(h -> h.execute("update accounts set is_admin = false where id = ?",
                quipu.accounts.accountOf(formerKey)));
        try {
            EtlRun run = etl.run("ubigeo");
            assertThat(run.exitCode()).as(run.stderr()).isZero();
            long runId = run.runId();
            List<String> eventIds = quipu.database.texts("""
                    select id from events where type like 'etl.run.%' and (data->>'runId')::bigint = ?
                     order by seq""", runId);
            assertThat(eventIds).hasSize(2);

            await().atMost(Duration.ofSeconds(20)).untilAsserted(() ->
                    assertThat(deliveries(adminEndpoint)).containsExactlyInAnyOrder("delivered", "delivered"));

            List<WebhookReceiver.Received> received = receiver.all().stream()
                    .filter(r -> r.path().equals("/admin")).toList();
            assertThat(received).hasSize(2);
            // Deliveries are concurrent, so their order of arrival is not promised; the events' order is.
            assertThat(received).extracting(r -> r.header("webhook-id"))
                    .containsExactlyInAnyOrderElementsOf(eventIds);
            JsonNode started = envelopeOf(received, eventIds.get(0));
            JsonNode succeeded = envelopeOf(received, eventIds.get(1));
            assertThat(started.get("type").asText()).isEqualTo("etl.run.started");
            assertThat(succeeded.get("type").asText()).isEqualTo("etl.run.succeeded");
            for (JsonNode envelope : List.of(started, succeeded)) {
                assertThat(envelope.get("data").get("runId").asLong()).isEqualTo(runId);
                assertThat(envelope.get("data").get("job").asText()).isEqualTo("ubigeo");
                assertThat(envelope.get("data").get("startedAt").asText()).isNotBlank();
            }
            assertThat(started.get("data").get("finishedAt").isNull()).isTrue();
            assertThat(succeeded.get("data").get("finishedAt").asText()).isNotBlank();
            assertThat(succeeded.get("data").get("rowsWritten").asLong()).isEqualTo(1891);
            assertThat(succeeded.get("data").get("error").isNull()).isTrue();
            assertThat(received).extracting(r -> r.header("x-quipu-event"))
                    .containsExactlyInAnyOrder("etl.run.started", "etl.run.succeeded");

            // Both events were fanned out (the admin's deliveries exist), and the former admin got no delivery.
            assertThat(deliveries(formerEndpoint)).isEmpty();
            assertThat(receiver.all()).noneMatch(r -> r.path().equals("/former-admin"));
        } finally {
            // Later ETL runs of other test classes should not be sent to this class's closed receiver.
            for (var endpoint : List.of(new String[] {adminKey, adminEndpoint}, new String[] {formerKey,
                    formerEndpoint})) {
                assertThat(quipu.request("DELETE", "/v1/webhooks/" + endpoint[1], endpoint[0]).statusCode())
                        .isEqualTo(204);
            }
        }
    }

    private static void grantAdmin(String key) {
        UUID account = quipu.accounts.accountOf(key);
        String email = quipu.database.texts("select email from accounts where id = ?", account).getFirst();
        HttpResponse<String> granted = quipu.task("grant-admin", "email", email);
        assertThat(granted.statusCode()).as(granted.body()).isEqualTo(200);
    }

    private static String create(String key, String path, String events) {
        HttpResponse<String> created = quipu.post("/v1/webhooks", key, "application/json",
                "{\"url\":\"" + receiver.url(path) + "\",\"events\":" + events + "}");
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        return quipu.body(created).get("id").asText();
    }

    private static List<String> deliveries(String endpointId) {
        return quipu.database.texts("select status from webhook_deliveries where endpoint_id = cast(? as uuid)",
                endpointId);
    }

    private static JsonNode envelopeOf(List<WebhookReceiver.Received> received, String eventId) throws IOException {
        WebhookReceiver.Received r = received.stream().filter(x -> eventId.equals(x.header("webhook-id")))
                .findFirst().orElseThrow();
        JsonNode envelope = quipu.json.readTree(r.body());
        assertThat(envelope.get("id").asText()).isEqualTo(eventId);
        return envelope;
    }
}
