package pe.quipu.api.http;

import io.dropwizard.core.server.DefaultServerFactory;
import io.dropwizard.jetty.HttpConnectorFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.testing.LogCapture;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.api.testing.RawResponse;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A client that sends headers and part of a body, then waits, holds no worker for long and never ends in a 500: an
 * error answered before the body is read goes out at once (with {@code Connection: close}), and a body an endpoint
 * waits for fails after the connector's idle timeout (config.yml), as a 400.
 */
class StalledBodyTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    private static final String PARTIAL = "{\"rucs\": [";
    private static final String STATUS = "GET /v1/status HTTP/1.1\r\nHost: localhost\r\n\r\n";

    @Test
    void fifty_stalled_uploads_do_not_slow_a_lookup_and_end_without_a_500() throws Exception {
        String key = quipu.accounts.newKey(Scope.UBIGEOS_READ);
        assertThat(quipu.get("/v1/ubigeos/150101", key).statusCode()).isEqualTo(200);
        Duration idleTimeout = idleTimeout();
        assertThat(idleTimeout).isLessThanOrEqualTo(Duration.ofSeconds(10));

        List<Socket> refusedEarly = new ArrayList<>();
        List<Socket> readByTheEndpoint = new ArrayList<>();
        try (LogCapture log = LogCapture.start()) {
            for (int i = 0; i < 50; i++) {
                // Without a key the batch is refused (401) before its body is read; signup reads its body.
                boolean early = i % 2 == 0;
                (early ? refusedEarly : readByTheEndpoint).add(stall(early ? "/v1/ruc/batch" : "/v1/auth/signup"));
            }

            long started = System.nanoTime();
            HttpResponse<String> lookup = quipu.get("/v1/ubigeos/150101", key);
            Duration took = Duration.ofNanos(System.nanoTime() - started);
            assertThat(lookup.statusCode()).isEqualTo(200);
            assertThat(took).isLessThan(Duration.ofSeconds(2));

            List<RawResponse> answers = new ArrayList<>();
            for (Socket socket : refusedEarly) {
                // At once: well within a second, not when the client would have finished.
                RawResponse answer = answer(socket, "/v1/ruc/batch", Duration.ofSeconds(2));
                assertThat(answer.status()).as(answer.body()).isEqualTo(401);
                assertThat(answer.header("Connection")).hasValue("close");
                answers.add(answer);
            }
            for (Socket socket : readByTheEndpoint) {
                RawResponse answer = answer(socket, "/v1/auth/signup", idleTimeout.plusSeconds(5));
                assertThat(answer.status()).as(answer.body()).isEqualTo(400);
                assertThat(answer.body()).contains("\"type\":\"validation_error\"");
                answers.add(answer);
            }
            assertThat(answers).noneMatch(a -> a.status() >= 500);
            assertThat(log.errorsAndStackTraces()).isEmpty();
        } finally {
            for (Socket socket : refusedEarly) {
                socket.close();
            }
            for (Socket socket : readByTheEndpoint) {
                socket.close();
            }
        }
    }

    @Test
    void a_client_that_goes_away_mid_body_leaves_no_500_and_no_error_in_the_log() throws Exception {
        String key = quipu.accounts.newKey(Scope.RUC_READ);
        try (LogCapture log = LogCapture.start()) {
            for (String path : List.of("/v1/auth/signup", "/v1/ruc/batch")) {
                for (String auth : new String[]{"", "Authorization: Bearer " + key + "\r\n"}) {
                    Socket socket = stall(path, auth);
                    Thread.sleep(200);
                    socket.close();
                }
            }
            Thread.sleep(1_000);
            assertThat(log.errorsAndStackTraces()).isEmpty();
        }
        assertThat(quipu.get("/v1/status", null).statusCode()).isEqualTo(200);
    }

    @Test
    void a_body_that_arrives_after_an_early_error_keeps_the_connection() throws Exception {
        // 401 before the body was read; the body follows in two parts, quickly: it is read, and the connection stays.
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), quipu.uri("/").getPort())) {
            socket.setSoTimeout(5_000);
            String body = "{\"rucs\": [\"20100227461\"]}";
            OutputStream out = socket.getOutputStream();
            String head = "POST /v1/ruc/batch HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                    + "Content-Length: " + body.length() + "\r\n\r\n";
            out.write((head + body.substring(0, 5)).getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            Thread.sleep(10);
            out.write(body.substring(5).getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            RawResponse first = quipu.answerTo(head, ContentEncodingTest.readAnswer(socket.getInputStream()));
            assertThat(first.status()).isEqualTo(401);
            assertThat(first.header("Connection")).isEmpty();
            out.write(STATUS.getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            RawResponse second = quipu.answerTo(STATUS, ContentEncodingTest.readAnswer(socket.getInputStream()));
            assertThat(second.status()).isEqualTo(200);
        }
    }

    @Test
    void an_error_after_the_whole_body_was_read_keeps_the_connection() throws Exception {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), quipu.uri("/").getPort())) {
            socket.setSoTimeout(5_000);
            String body = "{\"email\": 1}";
            OutputStream out = socket.getOutputStream();
            String head = "POST /v1/auth/signup HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                    + "Content-Length: " + body.length() + "\r\n\r\n";
            out.write((head + body).getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            RawResponse first = quipu.answerTo(head, ContentEncodingTest.readAnswer(socket.getInputStream()));
            assertThat(first.status()).isEqualTo(400);
            // No Connection: close: the drain found the end of the body at once, rather than waiting for more.
            assertThat(first.header("Connection")).isEmpty();
            out.write(STATUS.getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            assertThat(quipu.answerTo(STATUS, ContentEncodingTest.readAnswer(socket.getInputStream())).status())
                    .isEqualTo(200);
        }
    }

    /** Opens a connection that sends the headers of a 1000-byte JSON body and its first 10 bytes, then waits. */
    private static Socket stall(String path) throws IOException {
        return stall(path, "");
    }

    private static Socket stall(String path, String extraHeaders) throws IOException {
        Socket socket = new Socket(InetAddress.getLoopbackAddress(), quipu.uri("/").getPort());
        OutputStream out = socket.getOutputStream();
        out.write(("POST " + path + " HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                + extraHeaders + "Content-Length: 1000\r\n\r\n" + PARTIAL).getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
        return socket;
    }

    /** The answer on a connection {@link #stall} opened for a POST to {@code path}, checked against the document. */
    private static RawResponse answer(Socket socket, String path, Duration within) throws IOException {
        socket.setSoTimeout((int) within.toMillis());
        String answer = ContentEncodingTest.readAnswer(socket.getInputStream());
        return quipu.answerTo("POST " + path + " HTTP/1.1\r\n", answer);
    }

    private static Duration idleTimeout() {
        DefaultServerFactory server = (DefaultServerFactory) quipu.configuration().getServerFactory();
        HttpConnectorFactory connector = (HttpConnectorFactory) server.getApplicationConnectors().getFirst();
        return connector.getIdleTimeout().toJavaDuration();
    }
}
