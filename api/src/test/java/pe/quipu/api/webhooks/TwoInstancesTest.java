package pe.quipu.api.webhooks;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.api.testing.WebhookReceiver;
import pe.quipu.core.events.EventOutbox;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two API instances on one database, each with its delivery worker, share the deliveries of 1,000 events to five
 * endpoints: every delivery is claimed once, every (endpoint, event) pair reaches the receiver once, and both
 * instances take part.
 *
 * <p>Which instance sent what is not kept once an attempt is recorded (the lease owner is cleared), so the test
 * watches the claims themselves: a trigger of the test's own copies every lease taken on {@code webhook_deliveries}
 * (delivery, owner) into a table, removed after the class.
 */
class TwoInstancesTest {

    private static final int ENDPOINTS = 5;
    private static final int EVENTS = 1_000;
    private static final int TRANSACTIONS = 4;

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension().with("webhooks.allowPrivateNetworks", "true");
    static final WebhookReceiver receiver = WebhookReceiver.start();
    /** The second instance; the extension's own peer() would not allow delivering to 127.0.0.1. */
    static QuipuExtension.Instance second;

    @BeforeAll
    static void watchClaims() {
        quipu.database.jdbi().useHandle(h -> h.execute("""
                create table two_instances_claims (
                    delivery_id  text not null,
                    endpoint_id  uuid not null,
                    owner        uuid not null
                );
                create function two_instances_claim() returns trigger language plpgsql as $$
                begin
                    insert into two_instances_claims values (new.id, new.endpoint_id, new.lease_owner);
                    return null;
                end;
                $$;
                create trigger two_instances_claim after update of lease_owner on webhook_deliveries
                    for each row when (new.lease_owner is not null)
                    execute function two_instances_claim();
                """));
        second = quipu.startInstance(Map.of("webhooks.allowPrivateNetworks", "true",
                "webhooks.workerEnabled", "true", "webhooks.maintenanceInterval", "1h"));
    }

    @AfterAll
    static void stop() {
        try {
            if (second != null) {
                second.stop();
            }
        } finally {
            receiver.close();
            quipu.database.jdbi().useHandle(h -> h.execute("""
                    drop trigger if exists two_instances_claim on webhook_deliveries;
                    drop function if exists two_instances_claim();
                    drop table if exists two_instances_claims;
                    """));
        }
    }

    @Test
    void a_thousand_events_to_five_endpoints_are_each_sent_once_by_one_of_two_instances() {
        String key = quipu.accounts.newKey(Scope.WEBHOOKS_MANAGE);
        UUID account = quipu.accounts.accountOf(key);
        String prefix = "/two-" + UUID.randomUUID() + "/";
        List<String> endpointIds = new ArrayList<>();
        for (int i = 0; i < ENDPOINTS; i++) {
            HttpResponse<String> created = quipu.post("/v1/webhooks", key, "application/json",
                    "{\"url\":\"" + receiver.url(prefix + i) + "\",\"events\":[\"key.created\"]}");
            assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
            endpointIds.add(quipu.body(created).get("id").asText());
        }
        String[] endpoints = endpointIds.toArray(String[]::new);

        EventOutbox outbox = new EventOutbox(quipu.clock, quipu.json);
        Set<String> eventIds = new HashSet<>();
        for (int t = 0; t < TRANSACTIONS; t++) {
            int first = t * EVENTS / TRANSACTIONS;
            int last = (t + 1) * EVENTS / TRANSACTIONS;
            eventIds.addAll(quipu.database.jdbi().inTransaction(h -> {
                List<String> ids = new ArrayList<>();
                for (int n = first; n < last; n++) {
                    ids.add(outbox.append(h, "key.created", account,
                            Map.of("id", "key_two_instances_" + n, "name", "key " + n)).id());
                }
                return ids;
            }));
        }
        assertThat(eventIds).hasSize(EVENTS);

        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250)).untilAsserted(() ->
                assertThat(count("""
                        select count(*) from webhook_deliveries
                         where endpoint_id = any(cast(? as uuid[])) and status = 'delivered'""", endpoints))
                        .isEqualTo(ENDPOINTS * EVENTS));

        // Every delivery was delivered at its first attempt, recorded once.
        assertThat(quipu.database.texts("""
                select status || ' ' || attempts || ' ' || count(*) from webhook_deliveries
                 where endpoint_id = any(cast(? as uuid[])) group by status, attempts""", (Object) endpoints))
                .containsExactly("delivered 1 " + ENDPOINTS * EVENTS);
        List<String> attemptIds = quipu.database.texts("""
                select a.id from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id
                 where d.endpoint_id = any(cast(? as uuid[]))""", (Object) endpoints);
        assertThat(attemptIds).hasSize(ENDPOINTS * EVENTS).doesNotHaveDuplicates();

        // The receiver: each (endpoint, event) pair once, each attempt's x-quipu-delivery its own.
        List<WebhookReceiver.Received> received = receiver.all().stream()
                .filter(r -> r.path().startsWith(prefix)).toList();
        assertThat(received).hasSize(ENDPOINTS * EVENTS);
        assertThat(received.stream().map(r -> r.path() + " " + r.header("webhook-id")).toList())
                .doesNotHaveDuplicates();
        Map<String, Set<String>> eventsByPath = received.stream().collect(Collectors.groupingBy(
                WebhookReceiver.Received::path, Collectors.mapping(r -> r.header("webhook-id"), Collectors.toSet())));
        assertThat(eventsByPath).hasSize(ENDPOINTS);
        eventsByPath.forEach((path, ids) -> assertThat(ids).as(path).isEqualTo(eventIds));
        List<String> deliveryHeaders = received.stream().map(r -> r.header("x-quipu-delivery")).toList();
        assertThat(deliveryHeaders).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(attemptIds);

        // Every delivery claimed once, and both workers (two lease owners) took part.
        assertThat(count("""
                select count(*) from two_instances_claims where endpoint_id = any(cast(? as uuid[]))""", endpoints))
                .isEqualTo(ENDPOINTS * EVENTS);
        assertThat(count("""
                select count(distinct delivery_id) from two_instances_claims
                 where endpoint_id = any(cast(? as uuid[]))""", endpoints))
                .isEqualTo(ENDPOINTS * EVENTS);
        List<String> shares = quipu.database.texts("""
                select count(*) from two_instances_claims where endpoint_id = any(cast(? as uuid[]))
                 group by owner order by count(*) desc""", (Object) endpoints);
        System.out.println("TwoInstancesTest: claims per worker " + shares);
        assertThat(shares).hasSize(2);

        // The history the API shows agrees.
        JsonNode history = quipu.body(quipu.get("/v1/webhooks/" + endpoints[0] + "/deliveries", key));
        assertThat(history.get("items")).hasSize(100);
        history.get("items").forEach(item -> {
            assertThat(item.get("status").asText()).isEqualTo("delivered");
            assertThat(item.get("attempts").asInt()).isEqualTo(1);
            assertThat(item.get("responseCode").asInt()).isEqualTo(204);
        });
    }

    private static long count(String sql, String[] endpoints) {
        return Long.parseLong(quipu.database.texts(sql, (Object) endpoints).getFirst());
    }
}
