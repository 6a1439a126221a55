package pe.quipu.api.accounts;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.testing.ChildServer;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.api.testing.TestAccounts;

import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Each Argon2 hash or verification allocates about 19 MiB. On a host that reports 12 processors and gives the API a
 * 128 MB heap, unauthenticated requests must not be able to run so many at once that the heap runs out: 24
 * wrong-password logins and 24 signups, all at once and each from its own client address (so that no per-address
 * limit spares the hasher), get 401, 201 or 429 with Retry-After, never a 5xx, and the API never throws an
 * OutOfMemoryError. The heap and the processor count can only be set for a JVM of its own, so the API runs as
 * {@code java -Xmx128m -XX:ActiveProcessorCount=12 … QuipuApplication server config.yml} on this test's database.
 */
class PasswordHashingHeapTest {

    private static final int LOGINS = 24;
    private static final int SIGNUPS = 24;

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    private final List<ChildServer> children = new ArrayList<>();

    @AfterEach
    void cleanUp() {
        children.forEach(ChildServer::close);
    }

    @Test
    void a_burst_of_logins_and_signups_on_a_128_mb_heap_with_12_processors_is_answered_without_running_out_of_memory()
            throws Exception {
        quipu.clock.set(Instant.now());
        List<TestAccounts.Session> victims = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            victims.add(quipu.accounts.newSession());
        }
        ChildServer child = startApi();

        ExecutorService threads = Executors.newFixedThreadPool(LOGINS + SIGNUPS);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<Answer>> answers = new ArrayList<>();
        try {
            for (int i = 0; i < LOGINS + SIGNUPS; i++) {
                boolean login = i % 2 == 0;
                // 127.0.0.0/8 is all loopback: each request comes from an address of its own.
                InetAddress from = InetAddress.getByName("127.0.1." + (10 + i));
                String body = login
                        ? "{\"email\":\"" + victims.get(i / 2 % victims.size()).email()
                        + "\",\"password\":\"wrong password " + i + "\"}"
                        : "{\"email\":\"burst-" + UUID.randomUUID()
                        + "@quipu.test\",\"password\":\"a long enough password\",\"nombre\":\"Burst\"}";
                URI uri = URI.create("http://127.0.0.1:" + child.port() + (login ? "/v1/auth/login" : "/v1/auth/signup"));
                answers.add(threads.submit(() -> {
                    HttpClient client = HttpClient.newBuilder().localAddress(from).build();
                    go.await();
                    HttpResponse<String> response = client.send(HttpRequest.newBuilder(uri)
                                    .header("Content-Type", "application/json")
                                    .timeout(Duration.ofMinutes(2))
                                    .POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                            HttpResponse.BodyHandlers.ofString());
                    return new Answer(login, response.statusCode(), response.headers().firstValue("Retry-After")
                            .orElse(null), response.body());
                }));
            }
            go.countDown();
            List<Answer> all = new ArrayList<>();
            for (Future<Answer> answer : answers) {
                try {
                    all.add(answer.get(3, TimeUnit.MINUTES));
                } catch (java.util.concurrent.ExecutionException e) {
                    throw new AssertionError("a request failed (an OutOfMemoryError may have ended the API). Its log:\n"
                            + child.log(), e.getCause());
                }
            }
            String summary = summary(all) + (child.log().contains("OutOfMemoryError")
                    ? "; the API threw OutOfMemoryError" : "");
            for (Answer answer : all) {
                assertThat(answer.status()).as("%s\n%s", summary, answer.body()).isLessThan(500);
                if (answer.status() == 429) {
                    assertThat(new ObjectMapper().readTree(answer.body()).path("type").asText()).isEqualTo("rate_limited");
                    assertThat(answer.retryAfter()).as(summary).isNotNull().matches("[1-9][0-9]*");
                } else if (answer.login()) {
                    assertThat(answer.status()).as(summary).isEqualTo(401);
                } else {
                    assertThat(answer.status()).as(summary).isEqualTo(201);
                }
            }
            // Those that got their turn were served (how many depends on how fast this machine hashes), and the API
            // still serves once the burst is over.
            assertThat(all.stream().filter(a -> a.status() == 401 || a.status() == 201).count()).as(summary)
                    .isPositive();
            TestAccounts.Session victim = victims.getFirst();
            HttpResponse<String> after = HttpClient.newBuilder().localAddress(InetAddress.getByName("127.0.1.200"))
                    .build().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + child.port() + "/v1/auth/login"))
                                    .header("Content-Type", "application/json")
                                    .POST(HttpRequest.BodyPublishers.ofString("{\"email\":\"" + victim.email()
                                            + "\",\"password\":\"" + victim.password() + "\"}")).build(),
                            HttpResponse.BodyHandlers.ofString());
            assertThat(after.statusCode()).as(after.body()).isEqualTo(200);
            assertThat(child.process().isAlive()).as(child.log()).isTrue();
            assertThat(child.log()).doesNotContain("OutOfMemoryError");
            System.out.println("PasswordHashingHeapTest: " + summary);
        } finally {
            threads.shutdownNow();
        }
    }

    private static String summary(List<Answer> answers) {
        Map<String, Long> counts = new java.util.TreeMap<>();
        for (Answer a : answers) {
            counts.merge((a.login() ? "login " : "signup ") + a.status(), 1L, Long::sum);
        }
        return counts.toString();
    }

    private record Answer(boolean login, int status, String retryAfter, String body) {
    }

    /**
     * The API on the test database in a JVM of its own, with a 128 MB heap and 12 processors as the JVM sees them,
     * on the real clock.
     */
    private ChildServer startApi() throws IOException {
        ChildServer child = ChildServer.start(quipu.database, List.of("-Xmx128m", "-XX:ActiveProcessorCount=12",
                "-Ddw.webhooks.workerEnabled=false"), Map.of());
        children.add(child);
        return child;
    }
}
