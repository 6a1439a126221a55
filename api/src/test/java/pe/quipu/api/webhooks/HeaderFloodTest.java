package pe.quipu.api.webhooks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.testing.ChildServer;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.api.testing.RawHttpReceiver;
import pe.quipu.api.testing.RawHttpReceiver.Answer;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static pe.quipu.api.webhooks.DeliveryTestKit.createEndpoint;

/**
 * Receivers that answer {@code HTTP/1.1 200} and then headers without end, eight attempts at once, against the API as
 * production runs it: its own JVM with the heap ./quipu gives it (128 MB) and the delivery worker inside. Each attempt
 * must end as {@code invalid_response} once the answer's head passes {@link WebhookSender#MAX_HEAD}, long before the
 * 10 s attempt timeout, while the API's resident memory stays near where it was and lookups keep answering.
 *
 * <p>The API runs on this test's database as an external PostgreSQL and on the real clock; this JVM's instance only
 * creates the endpoints (it delivers nothing). The memory is the child's {@code VmRSS}, read from /proc. The child
 * also dies at its first OutOfMemoryError: Jetty's parser catches what is thrown while it parses (an OutOfMemoryError
 * included) and fails the response with it, so an exhausted heap would otherwise pass unseen.
 */
class HeaderFloodTest {

    /** ./quipu's heap; see the class comment for the exit. */
    private static final List<String> JVM = List.of("-Xmx128m", "-XX:+ExitOnOutOfMemoryError");
    /** As long as the receiver keeps writing: the attempt timeout (config.yml's 10 s), then it stops. */
    private static final Duration FLOOD = Duration.ofSeconds(10);
    private static final int ATTEMPTS = 8;
    private static final String LOOKUP = "/v1/ubigeos/150101";
    /** How far the resident memory may rise above where it stood before the flood. */
    private static final long RSS_RISE_MB = 48;

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension()
            .with("webhooks.allowPrivateNetworks", "true")
            .with("webhooks.workerEnabled", "false");

    private final ObjectMapper json = new ObjectMapper();
    private final List<ChildServer> children = new ArrayList<>();

    @AfterEach
    void cleanUp() {
        children.forEach(ChildServer::close);
    }

    @Test
    void eight_answers_whose_one_header_never_ends_fail_at_once_and_leave_memory_and_lookups_as_they_were()
            throws Exception {
        flood("one endless header", Answer.endless("HTTP/1.1 200 OK\r\nX-Flood: ", "a".repeat(64 * 1024), FLOOD));
    }

    @Test
    void eight_answers_of_endless_small_header_lines_fail_at_once_and_leave_memory_and_lookups_as_they_were()
            throws Exception {
        StringBuilder lines = new StringBuilder();
        for (int i = 0; i < 10_000; i++) {
            lines.append("X-Line-").append(i).append(": ").append(i).append("\r\n");
        }
        flood("endless small header lines", Answer.endless("HTTP/1.1 200 OK\r\n", lines.toString(), FLOOD));
    }

    private void flood(String what, Answer answer) throws Exception {
        try (RawHttpReceiver receiver = RawHttpReceiver.start(answer)) {
            String key = quipu.accounts.newKey(Scope.WEBHOOKS_MANAGE, Scope.UBIGEOS_READ);
            List<String> endpoints = new ArrayList<>();
            for (int i = 0; i < ATTEMPTS; i++) {
                endpoints.add(createEndpoint(quipu, key, receiver.url("/flood-" + i), "key.created")
                        .get("id").asText());
            }
            ChildServer child = startApi();
            for (int i = 0; i < 200; i++) {
                assertThat(child.get(LOOKUP, key).statusCode()).isEqualTo(200);
            }
            long baseline = 0;
            for (int i = 0; i < 10; i++) {
                baseline = Math.max(baseline, rssKb(child.process()));
                Thread.sleep(100);
            }

            ExecutorService threads = Executors.newFixedThreadPool(2 + ATTEMPTS);
            AtomicBoolean running = new AtomicBoolean(true);
            AtomicLong peak = new AtomicLong(baseline);
            ConcurrentLinkedQueue<String> failedLookups = new ConcurrentLinkedQueue<>();
            List<Long> lookupMillis = Collections.synchronizedList(new ArrayList<>());
            List<String> deliveries = new ArrayList<>();
            long started = System.nanoTime();
            try {
                Future<?> sampler = threads.submit(() -> {
                    while (running.get() && child.process().isAlive()) {
                        peak.accumulateAndGet(rssKb(child.process()), Math::max);
                        sleep(50);
                    }
                    return null;
                });
                Future<?> reader = threads.submit(() -> {
                    while (running.get()) {
                        long at = System.nanoTime();
                        try {
                            HttpResponse<String> looked = child.get(LOOKUP, key);
                            if (looked.statusCode() != 200) {
                                failedLookups.add(looked.statusCode() + " " + looked.body());
                            }
                        } catch (RuntimeException e) {
                            failedLookups.add(e.toString());
                        }
                        lookupMillis.add((System.nanoTime() - at) / 1_000_000);
                        sleep(20);
                    }
                    return null;
                });
                List<Future<String>> tests = new ArrayList<>();
                for (String endpoint : endpoints) {
                    tests.add(threads.submit(() -> {
                        HttpResponse<String> sent = child.post("/v1/webhooks/" + endpoint + "/test", key);
                        assertThat(sent.statusCode()).as(sent.body()).isEqualTo(202);
                        return json.readTree(sent.body()).get("deliveryId").asText();
                    }));
                }
                for (Future<String> test : tests) {
                    deliveries.add(test.get());
                }
                await().atMost(FLOOD.multipliedBy(3)).pollInterval(Duration.ofMillis(200)).until(() ->
                        !child.process().isAlive() || receiver.finished().size() == ATTEMPTS);
                sleep(1_000); // lookups and memory a little after the last attempt
                running.set(false);
                sampler.get();
                reader.get();
            } finally {
                running.set(false);
                threads.shutdownNow();
            }
            Duration took = Duration.ofNanos(System.nanoTime() - started);

            List<JsonNode> records = new ArrayList<>();
            for (int i = 0; i < ATTEMPTS; i++) {
                String id = deliveries.get(i);
                String endpoint = endpoints.get(i);
                records.add(child.process().isAlive()
                        ? await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(100))
                                .until(() -> json.readTree(child.get("/v1/webhooks/" + endpoint + "/deliveries/" + id,
                                        key).body()), r -> r.path("attemptLog").size() == 1)
                        : json.nullNode());
            }
            List<RawHttpReceiver.Connection> connections = receiver.finished();
            long written = connections.stream().mapToLong(RawHttpReceiver.Connection::bytesWritten).sum();
            long slowest = lookupMillis.isEmpty() ? -1 : Collections.max(lookupMillis);
            String measured = ("%s: RSS %d MB before, peak %d MB; %d lookups, slowest %d ms, %d failed; %,d bytes of "
                    + "headers sent over %d connections in %d ms; attempts %s").formatted(what, baseline / 1024,
                    peak.get() / 1024, lookupMillis.size(), slowest, failedLookups.size(), written, connections.size(),
                    took.toMillis(), records.stream().map(r -> r.path("error").asText() + "/"
                            + r.path("latencyMs").asText() + "ms").toList());
            System.out.println(measured);

            String log = child.log();
            assertThat(child.process().isAlive()).as("the API is alive; its log:\n%s", log).isTrue();
            assertThat(log.lines().filter(line -> line.contains("OutOfMemoryError")).limit(5).toList())
                    .as("OutOfMemoryErrors in the API's log; %s", measured).isEmpty();
            for (JsonNode record : records) {
                assertThat(record.get("error").asText()).as("%s", record).isEqualTo("invalid_response");
                assertThat(record.get("latencyMs").asInt()).as("%s", record).isLessThan(3_000);
            }
            assertThat(connections).as(measured).hasSize(ATTEMPTS)
                    .allSatisfy(c -> {
                        assertThat(c.clientHungUp()).as("Quipu hung up").isTrue();
                        assertThat(c.answering()).as("answering until Quipu hung up").isLessThan(Duration.ofSeconds(3));
                    });
            assertThat((peak.get() - baseline) / 1024).as(measured).isLessThan(RSS_RISE_MB);
            assertThat(failedLookups).as(measured).isEmpty();
            assertThat(slowest).as(measured).isBetween(0L, 1_000L);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The process's resident set, in kB (Linux). */
    private static long rssKb(Process process) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(process.pid()), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
        } catch (IOException e) {
            // the process has ended
        }
        return 0;
    }

    /**
     * {@code java -Xmx128m … server config.yml} on the test database, delivering to 127.0.0.1, ended by its first
     * OutOfMemoryError (see the class comment).
     */
    private ChildServer startApi() throws IOException {
        ChildServer child = ChildServer.start(quipu.database, JVM,
                Map.of("QUIPU_WEBHOOKS_ALLOW_PRIVATE_NETWORKS", "true"));
        children.add(child);
        return child;
    }
}
