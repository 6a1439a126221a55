package pe.quipu.api.webhooks;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.api.testing.RawHttpReceiver;
import pe.quipu.api.testing.WebhookReceiver;
import pe.quipu.api.testing.WebhookReceiver.Behaviour;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static pe.quipu.api.testing.ProblemAssert.assertProblem;
import static pe.quipu.api.webhooks.DeliveryTestKit.PATIENCE;
import static pe.quipu.api.webhooks.DeliveryTestKit.awaitLogged;
import static pe.quipu.api.webhooks.DeliveryTestKit.createEndpoint;
import static pe.quipu.api.webhooks.DeliveryTestKit.endpointBody;
import static pe.quipu.api.webhooks.DeliveryTestKit.instant;
import static pe.quipu.api.webhooks.DeliveryTestKit.sendTest;

/**
 * Each way a delivery attempt can fail (contract §6's {@code error} kinds), as the delivery record tells it after the
 * first attempt: {@code retrying}, the kind, the response code when there was one, the attempt in the log, and the
 * second attempt scheduled one minute (the default schedule's second delay) after the first.
 *
 * <p>{@code dns} never occurs at delivery time: the address a URL's host resolved to when the URL was set is pinned
 * and every attempt connects to it, with no lookup. A host that does not resolve is refused when the URL is set
 * instead (400), which {@link #aHostThatDoesNotResolveIsRefusedWhenTheEndpointIsCreated} shows.
 *
 * <p>The application under test delivers nothing itself ({@code workerEnabled: false}); a second instance does, so
 * that {@code blocked_address} can be shown with a worker whose rules differ from those the URL was accepted under.
 * Attempts time out after 2 s here, so that {@code timeout} shows quickly.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DeliveryFailureKindsTest {

    private static final String TIMEOUT = "2s";

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension()
            .with("webhooks.allowPrivateNetworks", "true")
            .with("webhooks.workerEnabled", "false")
            .with("webhooks.timeout", TIMEOUT);

    /** The instance that delivers: private networks allowed, as when the endpoints were created. */
    private static QuipuExtension.Instance worker;

    private WebhookReceiver receiver;
    private String key;

    @BeforeAll
    static void startWorker() {
        worker = permissiveWorker();
    }

    @AfterAll
    static void stopWorker() {
        if (worker != null) {
            worker.stop();
            worker = null;
        }
    }

    private static QuipuExtension.Instance permissiveWorker() {
        return quipu.startInstance(Map.of("webhooks.allowPrivateNetworks", "true", "webhooks.timeout", TIMEOUT));
    }

    @BeforeEach
    void setUp() {
        if (worker == null) {
            worker = permissiveWorker();
        }
        receiver = WebhookReceiver.start();
        key = quipu.accounts.newKey(Scope.WEBHOOKS_MANAGE);
    }

    @AfterEach
    void closeReceiver() {
        receiver.close();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(ints = {200, 202, 204})
    void anyTwoHundredAnswerIsADelivery(int status) {
        receiver.then(Behaviour.status(status));
        String endpoint = endpointFor(receiver.url("/ok"));
        DeliveryTestKit.Sent sent = sendTest(quipu, key, endpoint);

        assertThat(receiver.next(PATIENCE).path()).isEqualTo("/ok");
        JsonNode record = awaitLogged(quipu, key, endpoint, sent.deliveryId(), 1);
        assertThat(record.get("status").asText()).isEqualTo("delivered");
        assertThat(record.get("attempts").asInt()).isEqualTo(1);
        assertThat(record.get("responseCode").asInt()).isEqualTo(status);
        assertThat(record.get("error").isNull()).as("error of %s", record).isTrue();
        assertThat(record.get("nextAttemptAt").isNull()).as("nextAttemptAt of %s", record).isTrue();
        JsonNode attempt = record.get("attemptLog").get(0);
        assertThat(attempt.get("responseCode").asInt()).isEqualTo(status);
        assertThat(attempt.get("error").isNull()).isTrue();
    }

    @Test
    void anErrorStatusIsKeptWithTheFirstTwoKibibytesOfTheAnswer() {
        byte[] answer = ("A".repeat(2048) + "B".repeat(3000)).getBytes(StandardCharsets.US_ASCII);
        receiver.then(Behaviour.body(500, answer));
        String endpoint = endpointFor(receiver.url("/fails"));
        DeliveryTestKit.Sent sent = sendTest(quipu, key, endpoint);

        JsonNode attempt = assertFirstAttemptFailed(endpoint, sent, "http_status", 500);
        assertThat(attempt.get("responseBody").asText()).isEqualTo("A".repeat(2048));
        assertThat(receiver.all()).hasSize(1);
    }

    @Test
    void aRedirectIsAFailureAndIsNotFollowed() {
        try (WebhookReceiver elsewhere = WebhookReceiver.start()) {
            receiver.then(Behaviour.redirect(elsewhere.url("/moved")));
            String endpoint = endpointFor(receiver.url("/old"));
            DeliveryTestKit.Sent sent = sendTest(quipu, key, endpoint);

            assertFirstAttemptFailed(endpoint, sent, "redirect", 302);
            assertThat(elsewhere.anyWithin(Duration.ofMillis(500))).as("a request at the redirect's Location").isFalse();
            assertThat(elsewhere.all()).isEmpty();
        }
    }

    @Test
    void anAnswerOverOneMebibyteIsAFailure() {
        receiver.then(Behaviour.body(200, (1 << 20) + 1));
        String endpoint = endpointFor(receiver.url("/big"));
        DeliveryTestKit.Sent sent = sendTest(quipu, key, endpoint);

        assertFirstAttemptFailed(endpoint, sent, "body_too_large", 200);
    }

    @Test
    void anAnswerOverOneMebibyteWithoutContentLengthIsAFailure() {
        receiver.then(Behaviour.chunked(200, (1 << 20) + 1));
        String endpoint = endpointFor(receiver.url("/big-chunked"));
        DeliveryTestKit.Sent sent = sendTest(quipu, key, endpoint);

        assertFirstAttemptFailed(endpoint, sent, "body_too_large", 200);
    }

    @Test
    void anAnswerOfExactlyOneMebibyteIsADelivery() {
        receiver.then(Behaviour.body(200, 1 << 20), Behaviour.chunked(200, 1 << 20));
        String endpoint = endpointFor(receiver.url("/just-fits"));
        DeliveryTestKit.Sent withLength = sendTest(quipu, key, endpoint);
        JsonNode first = awaitLogged(quipu, key, endpoint, withLength.deliveryId(), 1);
        DeliveryTestKit.Sent chunked = sendTest(quipu, key, endpoint);
        JsonNode second = awaitLogged(quipu, key, endpoint, chunked.deliveryId(), 1);

        for (JsonNode record : new JsonNode[] {first, second}) {
            assertThat(record.get("status").asText()).as("%s", record).isEqualTo("delivered");
            assertThat(record.get("error").isNull()).as("%s", record).isTrue();
            assertThat(record.get("responseCode").asInt()).isEqualTo(200);
        }
    }

    @Test
    void anAnswerSlowerThanTheTimeoutIsAFailure() {
        receiver.then(Behaviour.slow(Duration.ofSeconds(4)));
        String endpoint = endpointFor(receiver.url("/slow"));
        DeliveryTestKit.Sent sent = sendTest(quipu, key, endpoint);

        assertThat(receiver.next(PATIENCE).path()).isEqualTo("/slow");
        JsonNode attempt = assertFirstAttemptFailed(endpoint, sent, "timeout", null);
        assertThat(attempt.get("latencyMs").asInt()).isGreaterThanOrEqualTo(1_900);
    }

    /**
     * A status line, then one header that never ends: the attempt fails as soon as the head passes 8 KiB, with the
     * status the line gave, and the connection is closed (before, it was read until the attempt's timeout).
     */
    @Test
    void anAnswerWhoseHeaderNeverEndsIsAnInvalidResponse() {
        try (RawHttpReceiver flood = RawHttpReceiver.start(RawHttpReceiver.Answer.endless(
                "HTTP/1.1 200 OK\r\nX-Flood: ", "a".repeat(16 * 1024), Duration.ofSeconds(30)))) {
            String endpoint = endpointFor(flood.url("/flood"));
            DeliveryTestKit.Sent sent = sendTest(quipu, key, endpoint);

            JsonNode attempt = assertFirstAttemptFailed(endpoint, sent, "invalid_response", 200);
            assertThat(attempt.get("latencyMs").asInt()).as("well within the 2 s timeout").isLessThan(1_000);
            await().atMost(PATIENCE).until(() -> flood.finished().size() == 1);
            assertThat(flood.finished().getFirst().clientHungUp()).isTrue();
        }
    }

    /** Ten thousand small header lines, then the end of the head: too many bytes of head all the same. */
    @Test
    void anAnswerOfTenThousandHeaderLinesIsAnInvalidResponse() {
        StringBuilder head = new StringBuilder("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n");
        for (int i = 0; i < 10_000; i++) {
            head.append("X-Line-").append(i).append(": ").append(i).append("\r\n");
        }
        try (RawHttpReceiver lines = RawHttpReceiver.start(RawHttpReceiver.Answer.bytes(head + "\r\n"))) {
            String endpoint = endpointFor(lines.url("/lines"));
            DeliveryTestKit.Sent sent = sendTest(quipu, key, endpoint);

            assertFirstAttemptFailed(endpoint, sent, "invalid_response", 200);
        }
    }

    /**
     * A head of 8 KiB (status line, headers and the empty line) is read; one of 9 KiB is not. (Jetty's count leaves
     * out the status line's version, so the limit falls 8 bytes past 8 KiB: the test stays clear of it.)
     */
    @ParameterizedTest(name = "{0} bytes")
    @ValueSource(ints = {8 * 1024, 9 * 1024})
    void aHeadOfEightKibibytesIsReadAndOneOfNineIsAnInvalidResponse(int size) {
        String start = "HTTP/1.1 204 No Content\r\nX-Pad: ";
        String head = start + "p".repeat(size - start.length() - 4) + "\r\n\r\n";
        assertThat(head).hasSize(size);
        try (RawHttpReceiver exact = RawHttpReceiver.start(RawHttpReceiver.Answer.bytes(head))) {
            String endpoint = endpointFor(exact.url("/exact"));
            DeliveryTestKit.Sent sent = sendTest(quipu, key, endpoint);

            if (size == 8 * 1024) {
                JsonNode record = awaitLogged(quipu, key, endpoint, sent.deliveryId(), 1);
                assertThat(record.get("status").asText()).as("%s", record).isEqualTo("delivered");
                assertThat(record.get("responseCode").asInt()).isEqualTo(204);
            } else {
                assertFirstAttemptFailed(endpoint, sent, "invalid_response", 204);
            }
        }
    }

    /** What answers is not HTTP (here an SSH server on the URL's port): the answer is invalid, not refused. */
    @Test
    void anAnswerThatIsNotHttpIsAnInvalidResponse() {
        try (RawHttpReceiver ssh = RawHttpReceiver.start(RawHttpReceiver.Answer.bytes("SSH-2.0-OpenSSH_9.6\r\n"))) {
            String endpoint = endpointFor(ssh.url("/ssh"));
            DeliveryTestKit.Sent sent = sendTest(quipu, key, endpoint);

            assertFirstAttemptFailed(endpoint, sent, "invalid_response", null);
        }
    }

    @Test
    void aRefusedConnectionIsAFailure() {
        String endpoint = endpointFor("http://127.0.0.1:" + closedPort() + "/nobody");
        DeliveryTestKit.Sent sent = sendTest(quipu, key, endpoint);

        assertFirstAttemptFailed(endpoint, sent, "connection_refused", null);
    }

    /**
     * An https URL whose server speaks plain HTTP: it answers the TLS hello with an HTTP error, as nginx or Jetty do
     * on a plain port. (The JDK's HttpServer, which the receiver is, waits for a request line that never comes, so
     * that attempt would only time out.)
     */
    @Test
    void aServerThatDoesNotSpeakTlsIsATlsFailure() throws IOException {
        try (ServerSocket plain = new ServerSocket(0, 10, InetAddress.getLoopbackAddress())) {
            AtomicInteger hellos = new AtomicInteger();
            Thread.ofVirtual().start(() -> answerInPlainHttp(plain, hellos));
            String endpoint = endpointFor("https://127.0.0.1:" + plain.getLocalPort() + "/plain");
            DeliveryTestKit.Sent sent = sendTest(quipu, key, endpoint);

            assertFirstAttemptFailed(endpoint, sent, "tls", null);
            assertThat(hellos.get()).as("connections to the plain server").isEqualTo(1);
        }
    }

    /**
     * An https server that takes the connection and resets it on the hello: the TCP connection was made but the
     * handshake never completed, which is a TLS failure although no TLS exception is raised.
     */
    @Test
    void aServerThatResetsTheHandshakeIsATlsFailure() throws IOException {
        try (ServerSocket mute = new ServerSocket(0, 10, InetAddress.getLoopbackAddress())) {
            AtomicInteger hellos = new AtomicInteger();
            Thread.ofVirtual().start(() -> {
                while (!mute.isClosed()) {
                    try (Socket socket = mute.accept()) {
                        hellos.incrementAndGet();
                        socket.getInputStream().read(new byte[4096]);
                        socket.setSoLinger(true, 0);
                    } catch (IOException e) {
                        // closed by the test
                    }
                }
            });
            String endpoint = endpointFor("https://127.0.0.1:" + mute.getLocalPort() + "/mute");
            DeliveryTestKit.Sent sent = sendTest(quipu, key, endpoint);

            assertFirstAttemptFailed(endpoint, sent, "tls", null);
            assertThat(hellos.get()).as("connections to the mute server").isEqualTo(1);
        }
    }

    private static void answerInPlainHttp(ServerSocket server, AtomicInteger connections) {
        while (!server.isClosed()) {
            try (Socket socket = server.accept()) {
                connections.incrementAndGet();
                socket.getInputStream().read(new byte[4096]);
                socket.getOutputStream().write(("HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\n"
                        + "Content-Length: 36\r\nConnection: close\r\n\r\nThis is a plain HTTP port, not TLS.\n")
                        .getBytes(StandardCharsets.US_ASCII));
                socket.getOutputStream().flush();
                // Read until the client hangs up: closing with its bytes unread would reset the connection, which
                // the client may see before the plain answer (connection_refused rather than tls).
                socket.setSoTimeout(10_000);
                while (socket.getInputStream().read(new byte[4096]) >= 0) {
                    // the rest of the hello, then the client's alert
                }
            } catch (IOException e) {
                // closed by the client (the handshake failed) or by the test
            }
        }
    }

    @Test
    void aHostThatDoesNotResolveIsRefusedWhenTheEndpointIsCreated() {
        HttpResponse<String> created = quipu.post("/v1/webhooks", key, "application/json",
                endpointBody("http://nowhere.invalid.test/x", "key.created"));

        JsonNode problem = assertProblem(created, 400, "validation_error");
        assertThat(problem.get("detail").asText()).contains("nowhere.invalid.test").contains("does not resolve");
    }

    /**
     * An address accepted when the endpoint was created, but refused by the rules of the worker that attempts it (a
     * setting changed): nothing is sent. Last, as it replaces the delivering instance for its duration.
     */
    @Test
    @Order(Integer.MAX_VALUE)
    void anAddressTheWorkersRulesRefuseIsNeverConnectedTo() {
        String endpoint = endpointFor(receiver.url("/private"));
        worker.stop();
        worker = null;
        QuipuExtension.Instance strict = quipu.startInstance(Map.of("webhooks.allowPrivateNetworks", "false"));
        try {
            DeliveryTestKit.Sent sent = sendTest(quipu, key, endpoint);

            assertFirstAttemptFailed(endpoint, sent, "blocked_address", null);
            assertThat(receiver.anyWithin(Duration.ofMillis(500))).as("a request to the refused address").isFalse();
            assertThat(receiver.all()).isEmpty();
        } finally {
            strict.stop();
        }
    }

    private String endpointFor(String url) {
        return createEndpoint(quipu, key, url, "key.created").get("id").asText();
    }

    /**
     * The record after a first, failed attempt of the default schedule: retrying, with the kind and code, due again
     * one minute after the attempt (the clock stands still). Answers the attempt's log entry.
     */
    private JsonNode assertFirstAttemptFailed(String endpoint, DeliveryTestKit.Sent sent, String error,
                                              Integer responseCode) {
        JsonNode record = awaitLogged(quipu, key, endpoint, sent.deliveryId(), 1);
        assertThat(record.get("id").asText()).isEqualTo(sent.deliveryId());
        assertThat(record.get("eventId").asText()).isEqualTo(sent.eventId());
        assertThat(record.get("status").asText()).as("%s", record).isEqualTo("retrying");
        assertThat(record.get("error").asText()).as("%s", record).isEqualTo(error);
        assertThat(record.get("attempts").asInt()).isEqualTo(1);
        assertThat(instant(record.get("lastAttemptAt"))).isEqualTo(QuipuExtension.START);
        assertThat(instant(record.get("nextAttemptAt"))).isEqualTo(QuipuExtension.START.plus(Duration.ofMinutes(1)));
        JsonNode attempt = record.get("attemptLog").get(0);
        assertThat(attempt.get("error").asText()).isEqualTo(error);
        assertThat(instant(attempt.get("attemptedAt"))).isEqualTo(QuipuExtension.START);
        if (responseCode == null) {
            assertThat(record.get("responseCode").isNull()).as("responseCode of %s", record).isTrue();
            assertThat(attempt.get("responseCode").isNull()).as("responseCode of %s", attempt).isTrue();
        } else {
            assertThat(record.get("responseCode").asInt()).isEqualTo(responseCode);
            assertThat(attempt.get("responseCode").asInt()).isEqualTo(responseCode);
        }
        return attempt;
    }

    private static int closedPort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
