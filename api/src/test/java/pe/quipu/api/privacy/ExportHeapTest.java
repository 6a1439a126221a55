package pe.quipu.api.privacy;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.testing.ChildServer;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.api.testing.TestAccounts;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

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
    /** Details of this many characters make each audit row about 8 KB of JSON: 10,000 rows, some 80 MB. */
    private static final int DETAILS_CHARACTERS = 8_000;

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

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
        // A 64 MB heap, ended by its first OutOfMemoryError.
        try (ChildServer child = ChildServer.start(quipu.database, List.of(HEAP, "-XX:+ExitOnOutOfMemoryError",
                "-Ddw.webhooks.workerEnabled=false"), Map.of())) {
            export(child, session);
        }
    }

    private static void export(ChildServer child, TestAccounts.Session session) throws InterruptedException {
        Counted counted;
        long bytes;
        try {
            HttpResponse<InputStream> response = HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(child.uri("/v1/me/export"))
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
}
