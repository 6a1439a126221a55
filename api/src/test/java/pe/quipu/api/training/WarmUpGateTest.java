package pe.quipu.api.training;

import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The gate in front of the server while the warm-up runs beside the clients, over real HTTP on a real Jetty server:
 * one application request at a time while warming, every one at once after; the probes and the admin connector
 * never wait.
 */
class WarmUpGateTest {

    private final AtomicBoolean warming = new AtomicBoolean(true);
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger mostAtOnce = new AtomicInteger();
    /** Requests to /hold wait for this; the others answer at once. */
    private volatile CountDownLatch release = new CountDownLatch(0);
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private Server server;
    private ServerConnector application;
    private ServerConnector admin;

    @BeforeEach
    void start() throws Exception {
        server = new Server();
        application = new ServerConnector(server);
        application.setName("application");
        admin = new ServerConnector(server);
        admin.setName("admin");
        server.addConnector(application);
        server.addConnector(admin);
        Handler counting = new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) throws Exception {
                int now = inFlight.incrementAndGet();
                mostAtOnce.accumulateAndGet(now, Math::max);
                try {
                    if (Request.getPathInContext(request).equals("/hold")) {
                        release.await(10, TimeUnit.SECONDS);
                    } else {
                        Thread.sleep(30);
                    }
                } finally {
                    inFlight.decrementAndGet();
                }
                response.setStatus(200);
                callback.succeeded();
                return true;
            }
        };
        server.setHandler(WarmUpGate.around(counting, application, warming::get, Duration.ofSeconds(30)));
        server.start();
    }

    @AfterEach
    void stop() throws Exception {
        release.countDown();
        server.stop();
    }

    @Test
    void while_warming_the_application_serves_one_request_at_a_time_and_every_one_is_answered() throws Exception {
        List<CompletableFuture<HttpResponse<Void>>> answers = send(application, "/v1/ruc/20100070970", 8);

        for (CompletableFuture<HttpResponse<Void>> answer : answers) {
            assertThat(answer.get(20, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        }
        assertThat(mostAtOnce.get()).isEqualTo(WarmUpGate.CONCURRENT);
    }

    @Test
    void once_warm_every_request_passes_at_once() throws Exception {
        warming.set(false);

        List<CompletableFuture<HttpResponse<Void>>> answers = send(application, "/v1/ruc/20100070970", 8);

        for (CompletableFuture<HttpResponse<Void>> answer : answers) {
            assertThat(answer.get(20, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        }
        assertThat(mostAtOnce.get()).isGreaterThan(1);
    }

    @Test
    void the_probes_and_the_admin_connector_do_not_wait_behind_a_request_in_progress() throws Exception {
        release = new CountDownLatch(1);
        CompletableFuture<HttpResponse<Void>> held = send(application, "/hold", 1).getFirst();
        awaitInFlight(1);

        for (String probe : List.of("/readyz", "/livez")) {
            assertThat(send(application, probe, 1).getFirst().get(5, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        }
        assertThat(send(admin, "/tasks/gc", 1).getFirst().get(5, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        CompletableFuture<HttpResponse<Void>> waiting = send(application, "/v1/status", 1).getFirst();
        Thread.sleep(300);
        assertThat(waiting).as("an application request waits for its turn").isNotDone();

        release.countDown();
        assertThat(held.get(5, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        assertThat(waiting.get(5, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
    }

    private List<CompletableFuture<HttpResponse<Void>>> send(ServerConnector connector, String path, int count) {
        List<CompletableFuture<HttpResponse<Void>>> answers = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            answers.add(client.sendAsync(HttpRequest.newBuilder(
                            URI.create("http://127.0.0.1:" + connector.getLocalPort() + path)).build(),
                    HttpResponse.BodyHandlers.discarding()));
        }
        return answers;
    }

    private void awaitInFlight(int count) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (inFlight.get() < count && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(inFlight.get()).isEqualTo(count);
    }
}
