package pe.quipu.api.webhooks;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.testing.ChildQuipu;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.api.testing.WebhookReceiver;
import pe.quipu.api.testing.WebhookReceiver.Behaviour;
import pe.quipu.core.events.EventOutbox;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Stopping and crashing delivery workers. The worker of {@code ./quipu deliver} runs in a JVM of its own, on this
 * test's database as an external PostgreSQL and on the real clock, so that it can be killed for real (SIGKILL) or
 * stopped as an operator stops it (SIGTERM). The extension's API instance delivers nothing
 * ({@code webhooks.workerEnabled: false}); workers started in this JVM run on {@code quipu.clock}.
 */
class WorkerCrashTest {

    private static final Duration CHILD_START = Duration.ofSeconds(90);

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension()
            .with("webhooks.allowPrivateNetworks", "true")
            .with("webhooks.workerEnabled", "false");

    private final EventOutbox outbox = new EventOutbox(quipu.clock, quipu.json);
    private final WebhookReceiver receiver = WebhookReceiver.start();
    private final List<Process> children = new ArrayList<>();
    private final List<Path> logs = new ArrayList<>();
    private final List<QuipuExtension.Instance> instances = new ArrayList<>();

    @AfterEach
    void cleanUp() throws InterruptedException, IOException {
        for (Process child : children) {
            if (child.isAlive()) {
                child.destroyForcibly().waitFor(20, TimeUnit.SECONDS);
            }
        }
        instances.forEach(QuipuExtension.Instance::stop);
        receiver.close();
        for (Path log : logs) {
            Files.deleteIfExists(log);
        }
    }

    @Test
    void an_attempt_cut_by_a_kill_is_sent_again_after_its_lease_and_recorded_once() throws Exception {
        Endpoint endpoint = newEndpoint("/crash");
        receiver.then(Behaviour.slow(Duration.ofSeconds(30)));
        Deliverer child = startDeliverer();

        EventOutbox.Event event = appendEvent(endpoint);
        WebhookReceiver.Received cut = nextOrExplain(endpoint, CHILD_START);
        assertThat(cut.header("webhook-id")).isEqualTo(event.id());
        // The receiver holds the request: the attempt is under way, its delivery leased to the child.
        Row leased = delivery(endpoint);
        assertThat(leased.status()).isEqualTo("pending");
        assertThat(leased.leaseOwner()).isNotNull();
        assertThat(leased.leaseUntil()).isAfter(Instant.now());

        child.process().destroyForcibly();
        assertThat(child.process().waitFor(20, TimeUnit.SECONDS)).isTrue();
        assertThat(child.process().exitValue()).as("SIGKILL").isEqualTo(137);

        // The kill left the delivery as it was: claimed, never recorded.
        Row afterKill = delivery(endpoint);
        assertThat(afterKill).isEqualTo(leased);
        assertThat(attemptCount(leased.id())).isZero();

        // A worker started while the dead attempt's lease still runs (by its clock) leaves the delivery alone: for
        // all it knows the attempt could still be under way.
        quipu.clock.set(leased.leaseUntil().minusSeconds(1));
        startWorkerInstance();
        assertThat(receiver.anyWithin(Duration.ofSeconds(3))).as("sent again before the lease passed").isFalse();
        assertThat(delivery(endpoint).leaseOwner()).isEqualTo(leased.leaseOwner());

        // Once the lease has passed, it is attempted again, and recorded.
        quipu.clock.set(Instant.now().plus(Duration.ofMinutes(2)));
        WebhookReceiver.Received again = nextOrExplain(endpoint, Duration.ofSeconds(30));
        assertThat(again.header("webhook-id")).isEqualTo(event.id());
        assertThat(again.header("x-quipu-delivery")).isNotEqualTo(cut.header("x-quipu-delivery"));
        assertThat(again.body()).isEqualTo(cut.body());

        JsonNode record = await().atMost(Duration.ofSeconds(20)).until(() -> record(endpoint, leased.id()),
                r -> r.get("status").asText().equals("delivered"));
        // Observed: the killed attempt is never recorded, so the delivery shows one attempt, the one that succeeded.
        assertThat(record.get("attempts").asInt()).isEqualTo(1);
        assertThat(record.get("responseCode").asInt()).isEqualTo(204);
        assertThat(record.get("attemptLog")).hasSize(1);
        assertThat(record.get("attemptLog").get(0).get("id").asText()).isEqualTo(again.header("x-quipu-delivery"));
        assertThat(delivery(endpoint).leaseOwner()).isNull();
    }

    @Test
    void the_deliver_command_delivers_and_on_sigterm_finishes_the_attempt_in_flight_before_it_exits()
            throws Exception {
        Endpoint endpoint = newEndpoint("/deliver");
        Deliverer child = startDeliverer();
        awaitReady(child);

        EventOutbox.Event first = appendEvent(endpoint);
        WebhookReceiver.Received received = nextOrExplain(endpoint, Duration.ofSeconds(30));
        assertThat(received.header("webhook-id")).isEqualTo(first.id());
        assertThat(received.path()).isEqualTo("/deliver");
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() ->
                assertThat(delivery(endpoint, first.id()).status()).isEqualTo("delivered"));

        receiver.then(Behaviour.slow(Duration.ofSeconds(3)));
        EventOutbox.Event second = appendEvent(endpoint);
        WebhookReceiver.Received held = nextOrExplain(endpoint, Duration.ofSeconds(30));
        assertThat(held.header("webhook-id")).isEqualTo(second.id());
        child.process().destroy();
        assertThat(child.process().waitFor(20, TimeUnit.SECONDS)).as(child.log()).isTrue();
        // Contract §13: a stop asked with SIGTERM exits 0.
        assertThat(child.process().exitValue()).as("SIGTERM, " + child.log()).isZero();

        // The attempt in flight was waited for and recorded before the exit; nothing was handed back.
        Row row = delivery(endpoint, second.id());
        assertThat(row.status()).isEqualTo("delivered");
        assertThat(row.attempts()).isEqualTo(1);
        assertThat(row.latencyMs()).isGreaterThanOrEqualTo(2_500);
        assertThat(row.leaseOwner()).isNull();
        assertThat(attemptCount(row.id())).isEqualTo(1);
        assertThat(child.log()).doesNotContain("Handed back");
        assertThat(receiver.all()).hasSize(2);
        // Started in development (ChildQuipu sets QUIPU_ENV=development), it said so, naming what is relaxed.
        assertThat(child.log()).containsOnlyOnce("DEVELOPMENT").contains("webhooks.allowHttp");
    }

    @Test
    void a_graceful_stop_of_an_api_instance_waits_for_the_attempt_in_flight_and_records_it() {
        Endpoint endpoint = newEndpoint("/graceful");
        receiver.then(Behaviour.slow(Duration.ofSeconds(2)));
        QuipuExtension.Instance instance = quipu.startInstance(workerSettings());

        EventOutbox.Event event = appendEvent(endpoint);
        WebhookReceiver.Received held = nextOrExplain(endpoint, Duration.ofSeconds(30));
        assertThat(held.header("webhook-id")).isEqualTo(event.id());
        instance.stop();

        // Read as soon as stop() returns: recorded already.
        Row row = delivery(endpoint, event.id());
        assertThat(row.status()).isEqualTo("delivered");
        assertThat(row.attempts()).isEqualTo(1);
        assertThat(row.latencyMs()).isGreaterThanOrEqualTo(1_500);
        assertThat(row.leaseOwner()).isNull();
        assertThat(attemptCount(row.id())).isEqualTo(1);
    }

    // ---- helpers

    private record Endpoint(String key, UUID account, String id) {
    }

    /** One delivery as the database holds it. */
    private record Row(String id, String status, int attempts, Integer latencyMs, String leaseOwner,
                       Instant leaseUntil) {
    }

    private record Deliverer(Process process, Path logFile) {
        String log() {
            try {
                return Files.readString(logFile);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    private Endpoint newEndpoint(String path) {
        String key = quipu.accounts.newKey(Scope.WEBHOOKS_MANAGE);
        HttpResponse<String> created = quipu.post("/v1/webhooks", key, "application/json",
                "{\"url\":\"" + receiver.url(path) + "\",\"events\":[\"key.created\"]}");
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        return new Endpoint(key, quipu.accounts.accountOf(key), quipu.body(created).get("id").asText());
    }

    private EventOutbox.Event appendEvent(Endpoint endpoint) {
        return quipu.database.jdbi().inTransaction(h -> outbox.append(h, "key.created", endpoint.account(),
                Map.of("id", "key_" + UUID.randomUUID(), "name", "crash test")));
    }

    /** The endpoint's only delivery. */
    private Row delivery(Endpoint endpoint) {
        List<Row> rows = rows("where endpoint_id = cast(? as uuid)", endpoint.id());
        assertThat(rows).hasSize(1);
        return rows.getFirst();
    }

    private Row delivery(Endpoint endpoint, String eventId) {
        List<Row> rows = rows("where endpoint_id = cast(? as uuid) and event_id = ?", endpoint.id(), eventId);
        assertThat(rows).hasSize(1);
        return rows.getFirst();
    }

    private List<Row> rows(String where, Object... parameters) {
        return quipu.database.rows("""
                select id, status, attempts, latency_ms, lease_owner::text, lease_until
                  from webhook_deliveries\s""" + where, rs -> new Row(rs.getString(1), rs.getString(2), rs.getInt(3),
                (Integer) rs.getObject(4), rs.getString(5),
                rs.getTimestamp(6) == null ? null : rs.getTimestamp(6).toInstant()), parameters);
    }

    /** The receiver's next request; failing, says where the endpoint's deliveries stand. */
    private WebhookReceiver.Received nextOrExplain(Endpoint endpoint, Duration timeout) {
        try {
            return receiver.next(timeout);
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + " at clock " + quipu.clock.instant() + "; deliveries "
                    + quipu.database.texts("select row_to_json(d)::text from webhook_deliveries d"
                    + " where endpoint_id = cast(? as uuid)", endpoint.id())
                    + "; attempts " + quipu.database.texts("select row_to_json(a)::text from webhook_attempts a"
                    + " join webhook_deliveries d on d.id = a.delivery_id where d.endpoint_id = cast(? as uuid)",
                    endpoint.id()), e);
        }
    }

    private long attemptCount(String deliveryId) {
        return Long.parseLong(quipu.database.texts("select count(*) from webhook_attempts where delivery_id = ?",
                deliveryId).getFirst());
    }

    private JsonNode record(Endpoint endpoint, String deliveryId) {
        HttpResponse<String> response = quipu.get("/v1/webhooks/" + endpoint.id() + "/deliveries/" + deliveryId,
                endpoint.key());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return quipu.body(response);
    }

    /** An API instance in this JVM with its delivery worker, on {@code quipu.clock}; stopped after the test. */
    private QuipuExtension.Instance startWorkerInstance() {
        QuipuExtension.Instance instance = quipu.startInstance(workerSettings());
        instances.add(instance);
        return instance;
    }

    /** A worker; maintenance (pruning, auto-disable) kept out of the test's minutes, whatever the clock says. */
    private static Map<String, String> workerSettings() {
        return Map.of("webhooks.workerEnabled", "true", "webhooks.allowPrivateNetworks", "true",
                "webhooks.maintenanceInterval", "1h");
    }

    /**
     * {@code java -cp <this JVM's class path> pe.quipu.api.QuipuApplication deliver config.yml}, on the test database
     * (config.yml reads DATABASE_URL, DATABASE_USER, DATABASE_PASSWORD and QUIPU_WEBHOOKS_ALLOW_PRIVATE_NETWORKS),
     * its output in a file.
     */
    private Deliverer startDeliverer() throws IOException {
        Path log = Files.createTempFile("quipu-deliver-", ".log");
        logs.add(log);
        // Maintenance on the real clock would prune and disable other tests' endpoints and deliveries.
        ProcessBuilder builder = ChildQuipu.command(quipu.database, log,
                List.of("-Xmx128m", "-Ddw.webhooks.maintenanceInterval=1h"), "deliver");
        builder.environment().put("QUIPU_WEBHOOKS_ALLOW_PRIVATE_NETWORKS", "true");
        Process process = builder.start();
        children.add(process);
        return new Deliverer(process, log);
    }

    private static void awaitReady(Deliverer child) {
        await().atMost(CHILD_START).pollInterval(Duration.ofMillis(200)).until(() -> {
            assertThat(child.process().isAlive()).as(child.log()).isTrue();
            return child.log().contains("Delivering webhooks");
        });
    }
}
