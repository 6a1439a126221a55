package pe.quipu.api.webhooks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import pe.quipu.api.testing.QuipuClient;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.core.events.EventOutbox;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** What the delivery tests share: endpoints made and events sent through the API, delivery records read back. */
final class DeliveryTestKit {

    /** Patience for what happens "eventually" (a delivery attempted and recorded). */
    static final Duration PATIENCE = Duration.ofSeconds(20);

    private DeliveryTestKit() {
    }

    /** A new endpoint (201) for these events; the answer carries its id and secret. */
    static JsonNode createEndpoint(QuipuClient api, String key, String url, String... events) {
        HttpResponse<String> created = api.post("/v1/webhooks", key, "application/json", endpointBody(url, events));
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        return api.body(created);
    }

    static String endpointBody(String url, String... events) {
        StringBuilder list = new StringBuilder();
        for (String event : events) {
            list.append(list.isEmpty() ? "" : ",").append('"').append(event).append('"');
        }
        return "{\"url\":\"" + url + "\",\"events\":[" + list + "]}";
    }

    /** The ids a test event answers with. */
    record Sent(String eventId, String deliveryId) {
    }

    /** POST /v1/webhooks/{id}/test: 202 with the event and its delivery. */
    static Sent sendTest(QuipuClient api, String key, String endpointId) {
        HttpResponse<String> test = api.post("/v1/webhooks/" + endpointId + "/test", key, null, "");
        assertThat(test.statusCode()).as(test.body()).isEqualTo(202);
        JsonNode body = api.body(test);
        return new Sent(body.get("eventId").asText(), body.get("deliveryId").asText());
    }

    /** GET of one delivery record, with its attempt log (200). */
    static JsonNode delivery(QuipuClient api, String key, String endpointId, String deliveryId) {
        HttpResponse<String> got = api.get("/v1/webhooks/" + endpointId + "/deliveries/" + deliveryId, key);
        assertThat(got.statusCode()).as(got.body()).isEqualTo(200);
        return api.body(got);
    }

    /** The endpoint's delivery list (newest first). */
    static List<JsonNode> deliveries(QuipuClient api, String key, String endpointId) {
        HttpResponse<String> got = api.get("/v1/webhooks/" + endpointId + "/deliveries", key);
        assertThat(got.statusCode()).as(got.body()).isEqualTo(200);
        List<JsonNode> items = new ArrayList<>();
        api.body(got).get("items").forEach(items::add);
        return items;
    }

    /** The endpoint as GET answers it. */
    static JsonNode endpoint(QuipuClient api, String key, String endpointId) {
        HttpResponse<String> got = api.get("/v1/webhooks/" + endpointId, key);
        assertThat(got.statusCode()).as(got.body()).isEqualTo(200);
        return api.body(got);
    }

    /**
     * The delivery record once {@code attempts} attempts are in its log (the log keeps every attempt, across manual
     * retries); fails if more than that were recorded. Every answer read on the way must agree with its own log.
     */
    static JsonNode awaitLogged(QuipuClient api, String key, String endpointId, String deliveryId, int attempts) {
        AtomicReference<JsonNode> record = new AtomicReference<>();
        await().atMost(PATIENCE).pollInterval(Duration.ofMillis(50)).untilAsserted(() -> {
            JsonNode r = delivery(api, key, endpointId, deliveryId);
            assertAgreesWithItsLog(r);
            assertThat(r.get("attemptLog").size()).as("attempts logged: %s", r).isGreaterThanOrEqualTo(attempts);
            record.set(r);
        });
        assertThat(record.get().get("attemptLog").size()).as("attempts logged: %s", record.get()).isEqualTo(attempts);
        return record.get();
    }

    /**
     * A record read with its attempts is one state: its last attempt is the log's latest, and the series it counts is
     * no longer than the log. Not an {@link AssertionError}, which an await would retry past: a torn read fails it at
     * once.
     */
    static void assertAgreesWithItsLog(JsonNode record) {
        JsonNode log = record.get("attemptLog");
        Instant latest = null;
        for (JsonNode attempt : log) {
            Instant at = instant(attempt.get("attemptedAt"));
            latest = latest == null || at.isAfter(latest) ? at : latest;
        }
        if (latest == null) {
            if (!record.get("lastAttemptAt").isNull() || record.get("attempts").asInt() != 0) {
                throw new IllegalStateException("a record attempted with an empty attempt log: " + record);
            }
        } else if (record.get("lastAttemptAt").isNull() || !instant(record.get("lastAttemptAt")).equals(latest)
                || record.get("attempts").asInt() > log.size()) {
            throw new IllegalStateException("a record that disagrees with its attempt log: " + record);
        }
    }

    /** The one delivery of this event to the endpoint, once fanned out. */
    static String awaitDeliveryOf(QuipuClient api, String key, String endpointId, String eventId) {
        AtomicReference<String> id = new AtomicReference<>();
        await().atMost(PATIENCE).pollInterval(Duration.ofMillis(50)).untilAsserted(() -> {
            List<JsonNode> matching = deliveries(api, key, endpointId).stream()
                    .filter(d -> d.get("eventId").asText().equals(eventId)).toList();
            assertThat(matching).hasSize(1);
            id.set(matching.getFirst().get("id").asText());
        });
        return id.get();
    }

    /** Writes a {@code key.created} event of the account to the outbox, as the API does when a key is created. */
    static String emitKeyCreated(QuipuExtension quipu, UUID accountId) {
        EventOutbox outbox = new EventOutbox(quipu.clock, new ObjectMapper());
        return quipu.database.jdbi().inTransaction(h -> outbox.append(h, "key.created", accountId,
                Map.of("keyId", UUID.randomUUID().toString(), "name", "delivery test"))).id();
    }

    static Instant instant(JsonNode node) {
        assertThat(node.isTextual()).as("an instant as text: %s", node).isTrue();
        return Instant.parse(node.asText());
    }

    /** {@code key.created} events are sent to endpoints subscribed before they were emitted. */
    static final String KEY_CREATED = "key.created";
}
