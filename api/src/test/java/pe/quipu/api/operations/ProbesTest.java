package pe.quipu.api.operations;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.testing.QuipuExtension;

import pe.quipu.api.testing.FreePorts;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code /livez} and {@code /readyz} (contract §13) over HTTP; the rule behind readiness is ReadinessTest's. */
class ProbesTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    @Test
    void a_serving_instance_is_live_and_ready_without_a_key() {
        HttpResponse<String> live = quipu.get("/livez", null);
        assertThat(live.statusCode()).isEqualTo(200);
        assertThat(live.body()).isEqualTo("ok");
        HttpResponse<String> ready = quipu.get("/readyz", null);
        assertThat(ready.statusCode()).isEqualTo(200);
        assertThat(ready.body()).isEqualTo("ready");
        assertThat(ready.headers().firstValue("Cache-Control")).hasValue("no-store");
    }

    @Test
    void readiness_ignores_stale_data_which_only_the_freshness_health_check_reports() {
        // Years after any load: the registry and the rates are stale for the health check, not for the balancer.
        quipu.clock.set(QuipuExtension.START.plusSeconds(3L * 365 * 24 * 3600));
        assertThat(quipu.get("/readyz", null).statusCode()).isEqualTo(200);
        assertThat(quipu.get("/livez", null).statusCode()).isEqualTo(200);
    }

    @Test
    void an_instance_stopping_turns_not_ready_at_once_and_keeps_serving_during_the_drain() throws Exception {
        QuipuExtension.Instance instance = quipu.startInstance(Map.of("shutdown.drainDelay", "2s"));
        assertThat(instance.get("/readyz", null).statusCode()).isEqualTo(200);
        Thread stopping = Thread.ofPlatform().start(instance::stop);
        try {
            long deadline = System.nanoTime() + 2_000_000_000L;
            HttpResponse<String> ready = instance.get("/readyz", null);
            while (ready.statusCode() == 200 && System.nanoTime() < deadline) {
                ready = instance.get("/readyz", null);
            }
            assertThat(ready.statusCode()).isEqualTo(503);
            assertThat(ready.body()).isEqualTo("shutting down");
            // Still served during the drain delay: the load balancer moves clients away before connections close.
            assertThat(instance.get("/livez", null).statusCode()).isEqualTo(200);
            assertThat(instance.get("/v1/status", null).statusCode()).isEqualTo(200);
        } finally {
            stopping.join();
        }
    }

    @Test
    void during_the_warm_up_the_port_answers_and_readiness_says_warming_up_until_it_has_ended() throws Exception {
        int port = FreePorts.free();
        AtomicReference<QuipuExtension.Instance> started = new AtomicReference<>();
        long launched = System.nanoTime();
        Thread starting = Thread.ofPlatform().start(() -> started.set(quipu.startInstance(Map.of("warmUp", "5s",
                "server.applicationConnectors[0].port", Integer.toString(port)))));
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofMillis(500)).build();
        URI readyz = URI.create("http://127.0.0.1:" + port + "/readyz");
        List<String> seen = new ArrayList<>();
        long firstAnswer = -1;
        long readyAt = -1;
        long deadline = System.nanoTime() + 120_000_000_000L;
        while (readyAt < 0 && System.nanoTime() < deadline) {
            try {
                HttpResponse<String> ready = http.send(HttpRequest.newBuilder(readyz).timeout(Duration.ofSeconds(3))
                        .build(), HttpResponse.BodyHandlers.ofString());
                if (firstAnswer < 0) {
                    firstAnswer = System.nanoTime();
                    HttpResponse<String> status = http.send(HttpRequest.newBuilder(
                            URI.create("http://127.0.0.1:" + port + "/v1/status")).build(),
                            HttpResponse.BodyHandlers.ofString());
                    assertThat(status.statusCode()).as("a client's request during the warm-up").isEqualTo(200);
                }
                String verdict = ready.statusCode() + " " + ready.body();
                if (seen.isEmpty() || !seen.getLast().equals(verdict)) {
                    seen.add(verdict);
                }
                if (ready.statusCode() == 200) {
                    readyAt = System.nanoTime();
                }
            } catch (java.net.ConnectException e) {
                // not bound yet: the schema is migrated, the features assembled
            }
            Thread.sleep(50);
        }
        starting.join();
        try {
            // (A probe between the connector's start and Jetty's "started" would see "starting".)
            assertThat(seen).endsWith("503 warming up", "200 ready")
                    .isSubsetOf("503 starting", "503 warming up", "200 ready");
            // The warm-up (5 s) ran while clients were served.
            assertThat(readyAt - firstAnswer).as("ns from the first answer to ready").isGreaterThan(3_000_000_000L);
            assertThat(firstAnswer - launched).as("ns from the launch to the first answer")
                    .isLessThan(readyAt - launched);
        } finally {
            started.get().stop();
        }
    }

    @Test
    void with_the_port_held_during_the_warm_up_it_refuses_connections_so_a_balancer_tries_another_instance()
            throws Exception {
        int port = FreePorts.free();
        AtomicReference<QuipuExtension.Instance> started = new AtomicReference<>();
        Thread starting = Thread.ofPlatform().start(() -> started.set(quipu.startInstance(Map.of("warmUp", "5s",
                "warmUpHoldsPort", "true", "server.applicationConnectors[0].port", Integer.toString(port)))));
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofMillis(500)).build();
        URI readyz = URI.create("http://127.0.0.1:" + port + "/readyz");
        int refused = 0;
        long slowest = 0;
        int status = -1;
        int first = -1;
        long deadline = System.nanoTime() + 120_000_000_000L;
        while (status != 200 && System.nanoTime() < deadline) {
            long asked = System.nanoTime();
            try {
                status = http.send(HttpRequest.newBuilder(readyz).timeout(Duration.ofSeconds(3)).build(),
                        HttpResponse.BodyHandlers.discarding()).statusCode();
                first = first < 0 ? status : first;
                slowest = Math.max(slowest, System.nanoTime() - asked);
            } catch (java.net.ConnectException e) {
                refused++;
                // Often, so that a port opened before the server has started (answering "starting") or before the
                // warm-up has ended (answering "warming up") is caught in the act.
                Thread.sleep(2);
            }
        }
        starting.join();
        try {
            assertThat(status).isEqualTo(200);
            // The warm-up ran (5 s) while the port refused connections, rather than holding them in its backlog: the
            // first connection accepted was answered ready, never "warming up".
            assertThat(first).isEqualTo(200);
            assertThat(refused).isPositive();
            assertThat(slowest).as("the slowest answer, in ns").isLessThan(2_000_000_000L);
        } finally {
            started.get().stop();
        }
    }
}
