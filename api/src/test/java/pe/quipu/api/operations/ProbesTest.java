package pe.quipu.api.operations;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.testing.QuipuExtension;

import java.net.http.HttpResponse;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code /livez} and {@code /readyz} (contract §13), and the rule behind readiness. */
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
    void during_the_warm_up_the_port_refuses_connections_so_a_balancer_tries_another_instance() throws Exception {
        int port = pe.quipu.api.testing.FreePorts.free();
        java.util.concurrent.atomic.AtomicReference<QuipuExtension.Instance> started =
                new java.util.concurrent.atomic.AtomicReference<>();
        Thread starting = Thread.ofPlatform().start(() -> started.set(quipu.startInstance(Map.of("warmUp", "5s",
                "server.applicationConnectors[0].port", Integer.toString(port)))));
        java.net.http.HttpClient http = java.net.http.HttpClient.newBuilder()
                .connectTimeout(java.time.Duration.ofMillis(500)).build();
        java.net.URI readyz = java.net.URI.create("http://127.0.0.1:" + port + "/readyz");
        int refused = 0;
        long slowest = 0;
        int status = -1;
        long deadline = System.nanoTime() + 120_000_000_000L;
        while (status != 200 && System.nanoTime() < deadline) {
            long asked = System.nanoTime();
            try {
                status = http.send(java.net.http.HttpRequest.newBuilder(readyz)
                        .timeout(java.time.Duration.ofSeconds(3)).build(),
                        java.net.http.HttpResponse.BodyHandlers.discarding()).statusCode();
                slowest = Math.max(slowest, System.nanoTime() - asked);
            } catch (java.net.ConnectException e) {
                refused++;
                Thread.sleep(50);
            }
        }
        starting.join();
        try {
            assertThat(status).isEqualTo(200);
            // The warm-up ran (5 s) while the port refused connections, rather than holding them in its backlog.
            assertThat(refused).isPositive();
            assertThat(slowest).as("the slowest answer, in ns").isLessThan(2_000_000_000L);
        } finally {
            started.get().stop();
        }
    }

    @Test
    void readiness_waits_for_the_start_and_ends_for_good_at_the_shutdown() {
        Readiness readiness = new Readiness(() -> true, System::nanoTime);
        assertThat(readiness.verdict()).isEqualTo(new Readiness.Verdict(false, "starting"));
        readiness.serving();
        assertThat(readiness.verdict().ready()).isTrue();
        readiness.draining();
        readiness.serving();
        assertThat(readiness.verdict()).isEqualTo(new Readiness.Verdict(false, "shutting down"));
    }

    @Test
    void readiness_asks_the_database_at_most_once_a_second() {
        AtomicBoolean up = new AtomicBoolean(true);
        AtomicInteger asked = new AtomicInteger();
        AtomicLong now = new AtomicLong();
        Readiness readiness = new Readiness(() -> {
            asked.incrementAndGet();
            if (!up.get()) {
                throw new IllegalStateException("connection refused");
            }
            return true;
        }, now::get);
        readiness.serving();
        assertThat(readiness.verdict().ready()).isTrue();
        up.set(false);
        now.addAndGet(999_000_000L);
        assertThat(readiness.verdict().ready()).isTrue();
        assertThat(asked).hasValue(1);
        now.addAndGet(1_000_000L);
        assertThat(readiness.verdict()).isEqualTo(new Readiness.Verdict(false, "the database does not answer"));
        up.set(true);
        now.addAndGet(Readiness.DATABASE_RECHECK.toNanos());
        assertThat(readiness.verdict().ready()).isTrue();
        assertThat(asked).hasValue(3);
    }
}
