package pe.quipu.api.operations;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.testing.ChildServer;
import pe.quipu.api.testing.QuipuExtension;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * SIGTERM under a stream of requests (contract §13): readiness turns 503 at once, requests keep being answered during
 * the drain delay, none is answered 5xx, and the process exits 0.
 */
class ShutdownTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    @Test
    void sigterm_under_a_stream_of_requests_answers_no_5xx_and_exits_0() throws Exception {
        String key = quipu.accounts.newKey(Scope.UBIGEOS_READ);
        try (ChildServer child = ChildServer.start(quipu.database, List.of("-Xmx128m"),
                Map.of("QUIPU_SHUTDOWN_DRAIN_DELAY", "2s", "QUIPU_SHUTDOWN_GRACE", "10s"))) {
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
            AtomicBoolean stop = new AtomicBoolean();
            AtomicInteger answered = new AtomicInteger();
            AtomicInteger answeredAfterTerm = new AtomicInteger();
            AtomicBoolean termSent = new AtomicBoolean();
            ConcurrentLinkedQueue<String> serverErrors = new ConcurrentLinkedQueue<>();
            List<Thread> clients = new ArrayList<>();
            for (int c = 0; c < 4; c++) {
                clients.add(Thread.ofPlatform().start(() -> {
                    while (!stop.get()) {
                        try {
                            HttpResponse<String> r = http.send(HttpRequest.newBuilder(child.uri("/v1/ubigeos/150101"))
                                    .header("Authorization", "Bearer " + key).timeout(Duration.ofSeconds(15)).build(),
                                    HttpResponse.BodyHandlers.ofString());
                            answered.incrementAndGet();
                            if (termSent.get()) {
                                answeredAfterTerm.incrementAndGet();
                            }
                            if (r.statusCode() >= 500) {
                                serverErrors.add(r.statusCode() + " " + r.body());
                            }
                        } catch (IOException e) {
                            // Refused or closed once the connectors stop: what a load balancer retries elsewhere.
                            if (!child.process().isAlive()) {
                                return;
                            }
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                }));
            }
            Thread.sleep(1000);
            assertThat(answered.get()).isPositive();
            assertThat(status(http, child, "/readyz")).isEqualTo(200);

            termSent.set(true);
            child.process().destroy(); // SIGTERM
            int ready = 200;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
            while (ready == 200 && System.nanoTime() < deadline) {
                ready = status(http, child, "/readyz");
            }
            assertThat(ready).as("/readyz soon after SIGTERM").isEqualTo(503);

            assertThat(child.process().waitFor(60, TimeUnit.SECONDS)).as(child.log()).isTrue();
            stop.set(true);
            for (Thread client : clients) {
                client.join(20_000);
            }
            assertThat(child.process().exitValue()).as(child.log()).isZero();
            assertThat(serverErrors).as(child.log()).isEmpty();
            assertThat(answeredAfterTerm.get()).as("answered during the drain delay").isPositive();
        }
    }

    private static int status(HttpClient http, ChildServer child, String path) {
        try {
            return http.send(HttpRequest.newBuilder(child.uri(path)).timeout(Duration.ofSeconds(5)).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }
}
