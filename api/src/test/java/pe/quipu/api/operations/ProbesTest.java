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
