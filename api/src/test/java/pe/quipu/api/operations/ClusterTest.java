package pe.quipu.api.operations;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.testing.ChildQuipu;
import pe.quipu.api.testing.QuipuClient;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.api.testing.WebhookReceiver;
import pe.quipu.core.events.EventOutbox;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The multi-instance setup README describes (contract §13), smaller: two API instances with their delivery workers off
 * on one PostgreSQL reached by {@code DATABASE_URL}, and one {@code deliver} worker in a JVM of its own, with the test
 * as the round-robin load balancer. dev/cluster.sh runs the full one (Debian's PostgreSQL, nginx) for as long as asked.
 */
class ClusterTest {

    private static final int EVENTS = 200;

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension().with("webhooks.workerEnabled", "false")
            .with("webhooks.allowPrivateNetworks", "true");
    static final WebhookReceiver receiver = WebhookReceiver.start();
    static Process worker;
    static Path workerLog;

    @BeforeAll
    static void startTheWorker() throws Exception {
        workerLog = Files.createTempFile("quipu-cluster-worker-", ".log");
        ProcessBuilder builder = ChildQuipu.command(quipu.database, workerLog,
                List.of("-Xmx128m", "-Ddw.webhooks.maintenanceInterval=1h"), "deliver");
        builder.environment().put("QUIPU_WEBHOOKS_ALLOW_PRIVATE_NETWORKS", "true");
        worker = builder.start();
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200)).until(() -> {
            assertThat(worker.isAlive()).as(Files.readString(workerLog)).isTrue();
            return Files.readString(workerLog).contains("Delivering webhooks");
        });
    }

    @AfterAll
    static void stop() throws Exception {
        try {
            if (worker != null) {
                worker.destroy();
                assertThat(worker.waitFor(60, TimeUnit.SECONDS)).isTrue();
                assertThat(worker.exitValue()).as("the worker's exit on SIGTERM").isZero();
            }
        } finally {
            receiver.close();
            Files.deleteIfExists(workerLog);
        }
    }

    @Test
    void two_instances_behind_a_round_robin_serve_lookups_share_one_rate_limit_and_report_one_backlog() {
        List<QuipuClient> instances = List.of(quipu, quipu.peer());
        for (QuipuClient instance : instances) {
            assertThat(instance.get("/readyz", null).statusCode()).isEqualTo(200);
        }
        // Each has learned of the other (metering_instances), so each lets an account go at most one request ahead
        // of what the other has told it (docs/decisions.md, Metering).
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).until(() ->
                instances.stream().allMatch(i -> quipu.body(i.send(HttpRequest.newBuilder(i.adminUri("/metrics")), null))
                        .path("gauges").path("pe.quipu.api.metering.UsageMeter.instances").path("value").asInt() == 2));
        // One account at 20 requests a minute, its requests spread over both: one limit for both, within contract
        // §2's bound (the other instance's allowance: one request), and refused wherever the next ones land.
        String key = quipu.accounts.newKey("free", null, 20, Scope.UBIGEOS_READ);
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < 26; i++) {
            statuses.add(instances.get(i % 2).get("/v1/ubigeos/150101", key).statusCode());
        }
        assertThat(statuses.subList(0, 20)).containsOnly(200);
        assertThat(statuses.stream().filter(s -> s == 200).count()).isBetween(20L, 21L);
        assertThat(statuses.subList(22, 26)).containsOnly(429);
        // Each instance reports the same backlog, though neither delivers.
        for (QuipuClient instance : instances) {
            assertThat(instance.send(HttpRequest.newBuilder(instance.adminUri("/prometheus")), null).body())
                    .contains("quipu_webhook_deliveries_pending ");
        }
    }

    @Test
    void the_separate_worker_delivers_every_event_once_while_the_instances_deliver_nothing() {
        String key = quipu.accounts.newKey(Scope.WEBHOOKS_MANAGE);
        UUID account = quipu.accounts.accountOf(key);
        String path = "/cluster-" + UUID.randomUUID();
        // Made through the second instance: the worker learns of it through the database like any other.
        HttpResponse<String> created = quipu.peer().post("/v1/webhooks", key, "application/json",
                "{\"url\":\"" + receiver.url(path) + "\",\"events\":[\"key.created\"]}");
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        String endpoint = quipu.body(created).get("id").asText();

        EventOutbox outbox = new EventOutbox(quipu.clock, quipu.json);
        Set<String> events = new HashSet<>(quipu.database.jdbi().inTransaction(h -> {
            List<String> ids = new ArrayList<>();
            for (int n = 0; n < EVENTS; n++) {
                ids.add(outbox.append(h, "key.created", account, Map.of("id", "key_cluster_" + n, "name", "k" + n))
                        .id());
            }
            return ids;
        }));

        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(250)).untilAsserted(() ->
                assertThat(quipu.database.texts("""
                        select count(*) from webhook_deliveries
                         where endpoint_id = cast(? as uuid) and status = 'delivered'""", endpoint))
                        .containsExactly(Integer.toString(EVENTS)));
        assertThat(quipu.database.texts("""
                select count(*) from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id
                 where d.endpoint_id = cast(? as uuid)""", endpoint)).containsExactly(Integer.toString(EVENTS));
        List<String> received = receiver.all().stream().filter(r -> r.path().equals(path))
                .map(r -> r.header("webhook-id")).toList();
        assertThat(received).hasSize(EVENTS).doesNotHaveDuplicates();
        assertThat(new HashSet<>(received)).isEqualTo(events);
    }
}
