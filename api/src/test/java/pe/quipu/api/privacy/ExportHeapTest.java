package pe.quipu.api.privacy;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.testing.ChildQuipu;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.api.testing.TestAccounts;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The export is streamed, never built whole: an account whose audit log alone makes a document larger than the
 * whole heap exports from an API whose heap is capped below that size. A heap cannot be capped inside the test JVM,
 * nor can the allocation of a request be measured there (it runs on a server thread among the others), so the API
 * runs as {@code java -Xmx64m … QuipuApplication server config.yml} in a JVM of its own, on this test's database as
 * an external PostgreSQL and on the real clock, and dies at its first OutOfMemoryError. The document is read as a
 * stream here too, and only counted.
 */
class ExportHeapTest {

    private static final String HEAP = "-Xmx64m";
    private static final long HEAP_BYTES = 64L << 20;
    private static final Duration CHILD_START = Duration.ofSeconds(90);
    /** Details of this many characters make each audit row about 8 KB of JSON: 10,000 rows, some 80 MB. */
    private static final int DETAILS_CHARACTERS = 8_000;

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    private final List<Process> children = new ArrayList<>();
    private final List<Path> logs = new ArrayList<>();

    @AfterEach
    void cleanUp() throws InterruptedException, IOException {
        for (Process child : children) {
            if (child.isAlive()) {
                child.destroyForcibly().waitFor(20, TimeUnit.SECONDS);
            }
        }
        for (Path log : logs) {
            Files.deleteIfExists(log);
        }
    }

    @Test
    void an_export_larger_than_the_heap_streams_from_a_64_mb_api() throws Exception {
        // The child runs on the real clock: the session's token and the audit rows are of now.
        quipu.clock.set(Instant.now());
        TestAccounts.Session session = quipu.accounts.newSession();
        quipu.database.jdbi().useHandle(h -> h.createUpdate("""
                        insert into audit_log (account_id, at, action, ip, user_agent, details)
                        select :account, now() - n * interval '1 minute', 'test.bulk', '192.0.2.1', 'agent',
                               jsonb_build_object('n', n, 'filler', repeat(chr(97 + n % 26), :characters))
                          from generate_series(1, 10000) n""")
                .bind("account", session.accountId()).bind("characters", DETAILS_CHARACTERS).execute());
        Child child = startApi();

        Counted counted;
        long bytes;
        try {
            HttpResponse<InputStream> response = HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + child.port() + "/v1/me/export"))
                            .header("Authorization", "Bearer " + session.accessToken())
                            .timeout(Duration.ofMinutes(2)).build(),
                    HttpResponse.BodyHandlers.ofInputStream());
            assertThat(response.statusCode()).as(child.log()).isEqualTo(200);
            try (CountingStream body = new CountingStream(response.body())) {
                counted = count(body);
                bytes = body.bytes;
            }
        } catch (IOException e) {
            throw new AssertionError("The export failed (an OutOfMemoryError ends the API). Its log:\n" + child.log(),
                    e);
        }
        assertThat(counted.auditRows()).isEqualTo(10_000);
        assertThat(counted.truncated()).isTrue();
        assertThat(bytes).as("the document is larger than the API's whole heap").isGreaterThan(HEAP_BYTES);
        assertThat(child.process().isAlive()).as(child.log()).isTrue();
        assertThat(child.log()).doesNotContain("OutOfMemoryError");
    }

    /** Reads the document token by token: the audit rows counted, {@code _meta.truncated.auditLog}. */
    private static Counted count(InputStream body) throws IOException {
        int rows = 0;
        Boolean truncated = null;
        try (JsonParser parser = new JsonFactory().createParser(body)) {
            assertThat(parser.nextToken()).isEqualTo(JsonToken.START_OBJECT);
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String member = parser.currentName();
                parser.nextToken();
                if (member.equals("auditLog")) {
                    while (parser.nextToken() == JsonToken.START_OBJECT) {
                        parser.skipChildren();
                        rows++;
                    }
                } else if (member.equals("_meta")) {
                    while (parser.nextToken() == JsonToken.FIELD_NAME) {
                        String name = parser.currentName();
                        parser.nextToken();
                        if (name.equals("truncated")) {
                            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                                String section = parser.currentName();
                                parser.nextToken();
                                if (section.equals("auditLog")) {
                                    truncated = parser.getBooleanValue();
                                }
                            }
                        } else {
                            parser.skipChildren();
                        }
                    }
                } else {
                    parser.skipChildren();
                }
            }
            assertThat(parser.nextToken()).as("nothing after the document").isNull();
        }
        assertThat(truncated).as("_meta.truncated.auditLog").isNotNull();
        return new Counted(rows, truncated);
    }

    private record Counted(int auditRows, boolean truncated) {
    }

    private static final class CountingStream extends FilterInputStream {
        long bytes;

        CountingStream(InputStream in) {
            super(in);
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0) {
                bytes++;
            }
            return b;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            int n = super.read(buffer, offset, length);
            if (n > 0) {
                bytes += n;
            }
            return n;
        }
    }

    private record Child(Process process, Path logFile, int port) {
        String log() {
            try {
                return Files.readString(logFile);
            } catch (IOException e) {
                return "(no log: " + e + ")";
            }
        }
    }

    /**
     * {@code java -Xmx64m -cp <this JVM's class path> pe.quipu.api.QuipuApplication server config.yml} on the test
     * database, with the test instance's signing key (its tokens verify there) and nothing scheduled that would
     * touch other tests' data on the real clock within the test's minute.
     */
    private Child startApi() throws IOException {
        int port = freePort();
        int adminPort = freePort();
        Path log = Files.createTempFile("quipu-export-heap-", ".log");
        logs.add(log);
        ProcessBuilder builder = ChildQuipu.command(quipu.database, log, List.of(HEAP, "-XX:+ExitOnOutOfMemoryError",
                "-Ddw.auth.developmentSigningKeyFile=" + quipu.database.folder().resolve("jwt-signing-key.json"),
                "-Ddw.bcrp.captureEnabled=false",
                "-Ddw.webhooks.workerEnabled=false",
                "-Ddw.webhooks.maintenanceInterval=1h",
                "-Ddw.subscriptions.applyInterval=1h",
                "-Ddw.logging.level=WARN"), "server");
        Map<String, String> env = builder.environment();
        env.put("QUIPU_PORT", Integer.toString(port));
        env.put("QUIPU_ADMIN_PORT", Integer.toString(adminPort));
        Process process = builder.start();
        children.add(process);
        Child child = new Child(process, log, port);
        HttpClient client = HttpClient.newHttpClient();
        await().atMost(CHILD_START).pollInterval(Duration.ofMillis(250)).until(() -> {
            if (!process.isAlive()) {
                throw new AssertionError("the API ended: " + child.log());
            }
            try {
                return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/status"))
                        .build(), HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
            } catch (IOException e) {
                return false;
            }
        });
        return child;
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
