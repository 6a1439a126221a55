package pe.quipu.api.http;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.testing.LogCapture;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.api.testing.RawResponse;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.Socket;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.UUID;
import java.util.zip.CRC32;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;

import static org.assertj.core.api.Assertions.assertThat;
import static pe.quipu.api.testing.ProblemAssert.assertProblem;

/**
 * Request bodies with {@code Content-Encoding}: gzip is read, a body that is not gzip is a 400 (it was a 500 with a
 * 15 KB stack trace), other codings are a 415, and a gzip bomb is a 413 after inflating no more than the route's limit.
 */
class ContentEncodingTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    @Test
    void a_gzip_body_is_read() {
        String key = quipu.accounts.newKey(Scope.RUC_READ);
        HttpResponse<String> response = post("/v1/ruc/batch", key, "gzip",
                gzip("{\"rucs\": [\"20100227461\"]}".getBytes(StandardCharsets.UTF_8)));
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);

        String email = "gzip-" + UUID.randomUUID() + "@quipu.test";
        HttpResponse<String> signup = post("/v1/auth/signup", null, "gzip", gzip(("{\"email\":\"" + email
                + "\",\"password\":\"correct horse battery staple\",\"nombre\":\"Gzip\"}").getBytes(StandardCharsets.UTF_8)));
        assertThat(signup.statusCode()).as(signup.body()).isEqualTo(201);
    }

    @Test
    void a_body_that_is_not_gzip_is_400_validation_error_without_a_stack_trace() {
        String key = quipu.accounts.newKey(Scope.RUC_READ);
        try (LogCapture log = LogCapture.start()) {
            JsonNode batch = assertProblem(post("/v1/ruc/batch", key, "gzip",
                    "{\"rucs\": [\"20100227461\"]}".getBytes(StandardCharsets.UTF_8)), 400, "validation_error");
            assertThat(batch.path("detail").asText()).isEqualTo("The body is not valid gzip");
            JsonNode signup = assertProblem(post("/v1/auth/signup", null, "gzip",
                    "{\"email\":\"a@quipu.test\"}".getBytes(StandardCharsets.UTF_8)), 400, "validation_error");
            assertThat(signup.path("detail").asText()).isEqualTo("The body is not valid gzip");
            // Truncated gzip: a valid start, cut short.
            byte[] whole = gzip("{\"rucs\": [\"20100227461\"]}".getBytes(StandardCharsets.UTF_8));
            assertProblem(post("/v1/ruc/batch", key, "gzip", Arrays.copyOf(whole, whole.length - 12)),
                    400, "validation_error");
            assertThat(log.errorsAndStackTraces()).isEmpty();
        }
    }

    @Test
    void an_unsupported_content_coding_is_415_with_the_one_quipu_reads() {
        String key = quipu.accounts.newKey(Scope.RUC_READ);
        byte[] body = "{\"rucs\": [\"20100227461\"]}".getBytes(StandardCharsets.UTF_8);
        for (String coding : new String[]{"br", "deflate", "compress", "zstd", "gzip, gzip", "made-up"}) {
            HttpResponse<String> response = post("/v1/ruc/batch", key, coding, body);
            assertProblem(response, 415, "unsupported_media_type");
            assertThat(response.headers().firstValue("Accept-Encoding")).as(coding).hasValue("gzip");
        }
        assertThat(post("/v1/ruc/batch", key, "identity", body).statusCode()).isEqualTo(200);
    }

    @Test
    void a_gzip_bomb_is_413_after_inflating_no_more_than_the_routes_limit() throws Exception {
        byte[] bomb = gzipBomb(10 * 1024 * 1024);
        long before = inflatedBytes();
        long started = System.nanoTime();
        String head = "POST /v1/auth/signup HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                + "Content-Encoding: gzip\r\nContent-Length: " + bomb.length + "\r\n\r\n";
        RawResponse response = quipu.answerTo(head, sendWhileAnswered(head, bomb));
        long millis = (System.nanoTime() - started) / 1_000_000;
        assertThat(response.status()).as(response.body()).isEqualTo(413);
        assertThat(response.body()).contains("\"type\":\"payload_too_large\"");
        assertThat(millis).isLessThan(5_000);
        assertThat(inflatedBytes() - before).isPositive().isLessThanOrEqualTo(JsonBody.MAX_BYTES + 1);
    }

    private static HttpResponse<String> post(String path, String key, String coding, byte[] body) {
        return quipu.send(HttpRequest.newBuilder(quipu.uri(path)).POST(HttpRequest.BodyPublishers.ofByteArray(body))
                .header("Content-Type", "application/json").header("Content-Encoding", coding), key);
    }

    private static long inflatedBytes() {
        HttpResponse<String> metrics = quipu.send(HttpRequest.newBuilder(quipu.adminUri("/metrics")).GET(), null);
        return quipu.body(metrics).path("counters")
                .path(RequestContentEncoding.class.getName() + ".inflated-bytes").path("count").asLong();
    }

    private static byte[] gzip(byte[] plain) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream gzip = new GZIPOutputStream(out)) {
            gzip.write(plain);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    /**
     * A valid gzip member of about {@code size} bytes holding only zeros (a thousand times as many): one MiB of zeros
     * deflated with a full flush, which depends on nothing before it, repeated; then the final block and the trailer.
     */
    static byte[] gzipBomb(int size) {
        byte[] mebibyte = new byte[1 << 20];
        Deflater deflater = new Deflater(Deflater.BEST_COMPRESSION, true);
        deflater.setInput(mebibyte);
        byte[] buffer = new byte[1 << 16];
        int n = deflater.deflate(buffer, 0, buffer.length, Deflater.FULL_FLUSH);
        assertThat(deflater.needsInput()).isTrue();
        byte[] block = Arrays.copyOf(buffer, n);
        deflater.finish();
        byte[] last = Arrays.copyOf(buffer, deflater.deflate(buffer));
        deflater.end();
        int repeats = size / block.length;
        CRC32 crc = new CRC32();
        for (int i = 0; i < repeats; i++) {
            crc.update(mebibyte);
        }
        ByteBuffer bomb = ByteBuffer.allocate(10 + repeats * block.length + last.length + 8).order(ByteOrder.LITTLE_ENDIAN);
        bomb.put(new byte[]{0x1f, (byte) 0x8b, 8, 0, 0, 0, 0, 0, 0, (byte) 0xff});
        for (int i = 0; i < repeats; i++) {
            bomb.put(block);
        }
        bomb.put(last).putInt((int) crc.getValue()).putInt((int) ((long) repeats << 20));
        return bomb.array();
    }

    /** Sends headers and a large body from another thread, and reads the answer as it comes, even mid-upload. */
    private static String sendWhileAnswered(String head, byte[] body) throws Exception {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), quipu.uri("/").getPort())) {
            socket.setSoTimeout(10_000);
            Thread sender = Thread.ofVirtual().start(() -> {
                try {
                    OutputStream out = socket.getOutputStream();
                    out.write(head.getBytes(StandardCharsets.ISO_8859_1));
                    for (int at = 0; at < body.length; at += 64 * 1024) {
                        out.write(body, at, Math.min(64 * 1024, body.length - at));
                    }
                    out.flush();
                } catch (IOException e) {
                    // The server answered and closed before the whole body was sent: expected.
                }
            });
            String answer = readAnswer(socket.getInputStream());
            sender.join(10_000);
            return answer;
        }
    }

    /** One answer with a Content-Length, without waiting for the connection to close. */
    static String readAnswer(InputStream in) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int headEnd = -1;
        int length = -1;
        byte[] buffer = new byte[8192];
        while (true) {
            String text = bytes.toString(StandardCharsets.ISO_8859_1);
            if (headEnd < 0 && (headEnd = text.indexOf("\r\n\r\n")) >= 0) {
                length = RawResponse.parse(text.substring(0, headEnd + 4)).header("Content-Length")
                        .map(Integer::parseInt).orElse(0);
            }
            if (headEnd >= 0 && bytes.size() >= headEnd + 4 + length) {
                return new String(bytes.toByteArray(), 0, headEnd + 4 + length, StandardCharsets.UTF_8);
            }
            int n = in.read(buffer);
            if (n < 0) {
                throw new IOException("connection closed before a whole answer: " + text);
            }
            bytes.write(buffer, 0, n);
        }
    }
}
