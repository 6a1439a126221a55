package pe.quipu.api.http;

import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What {@link IdleConnections#quiesce} leaves to Jetty's graceful shutdown, which answers 503 to any request that
 * reaches it afterwards: only the connections whose request is being handled.
 */
class IdleConnectionsTest {

    private final CountDownLatch release = new CountDownLatch(1);
    private final CountDownLatch handling = new CountDownLatch(1);
    private Server server;
    private ServerConnector connector;

    @BeforeEach
    void start() throws Exception {
        server = new Server();
        connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        server.setHandler(new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) throws Exception {
                if (request.getHttpURI().getPath().equals("/slow")) {
                    handling.countDown();
                    release.await(10, TimeUnit.SECONDS);
                }
                response.setStatus(200);
                response.getHeaders().put("Content-Length", "2");
                response.write(true, ByteBuffer.wrap("ok".getBytes(StandardCharsets.US_ASCII)), callback);
                return true;
            }
        });
        server.start();
    }

    @AfterEach
    void stop() throws Exception {
        release.countDown();
        server.stop();
    }

    @Test
    void a_connection_accepted_a_moment_before_whose_request_never_comes_is_closed() throws Exception {
        try (Socket client = connect()) {
            awaitAccepted(1);

            int closed = IdleConnections.quiesce(server);

            // A request it sent now would meet the graceful shutdown's 503; closed, its client retries elsewhere.
            assertThat(closed).isEqualTo(1);
            assertThat(readsEnd(client)).isTrue();
        }
    }

    @Test
    void a_request_still_arriving_when_the_settling_time_ends_is_closed() throws Exception {
        try (Socket client = connect()) {
            // Headers without their blank line: a request that has begun to arrive and is not complete.
            client.getOutputStream().write("GET /fast HTTP/1.1\r\nHost: localhost\r\n".getBytes(StandardCharsets.US_ASCII));
            client.getOutputStream().flush();
            awaitAccepted(1);
            Thread.sleep(150);

            long started = System.nanoTime();
            int closed = IdleConnections.quiesce(server);

            // It was given the settling time to arrive whole, then closed rather than left for the 503.
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isGreaterThanOrEqualTo(900);
            assertThat(closed).isEqualTo(1);
            assertThat(readsEnd(client)).isTrue();
        }
    }

    @Test
    void an_idle_keep_alive_connection_is_closed_at_once() throws Exception {
        try (Socket client = connect()) {
            send(client, "/fast");
            assertThat(readResponse(client.getInputStream())).startsWith("HTTP/1.1 200");
            Thread.sleep(150); // no longer just accepted

            long started = System.nanoTime();
            int closed = IdleConnections.quiesce(server);

            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isLessThan(500);
            assertThat(closed).isEqualTo(1);
            assertThat(readsEnd(client)).isTrue();
        }
    }

    @Test
    void a_request_being_handled_is_left_to_finish() throws Exception {
        try (Socket client = connect()) {
            send(client, "/slow");
            assertThat(handling.await(5, TimeUnit.SECONDS)).isTrue();

            int closed = IdleConnections.quiesce(server);
            release.countDown();

            assertThat(closed).isZero();
            assertThat(readResponse(client.getInputStream())).startsWith("HTTP/1.1 200");
        }
    }

    @Test
    void a_connection_whose_request_is_answered_during_the_settling_time_is_closed_then() throws Exception {
        try (Socket client = connect()) {
            send(client, "/slow");
            assertThat(handling.await(5, TimeUnit.SECONDS)).isTrue();
            Thread.ofPlatform().start(() -> {
                sleep(200);
                release.countDown();
            });

            long started = System.nanoTime();
            int closed = IdleConnections.quiesce(server);

            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isBetween(150L, 900L);
            assertThat(closed).isEqualTo(1);
            assertThat(readResponse(client.getInputStream())).startsWith("HTTP/1.1 200");
            assertThat(readsEnd(client)).isTrue();
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private Socket connect() throws IOException {
        Socket socket = new Socket("127.0.0.1", connector.getLocalPort());
        socket.setSoTimeout(5000);
        return socket;
    }

    private void awaitAccepted(int connections) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (connector.getConnectedEndPoints().size() < connections && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertThat(connector.getConnectedEndPoints()).hasSize(connections);
    }

    private static void send(Socket socket, String path) throws IOException {
        socket.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: localhost\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        socket.getOutputStream().flush();
    }

    /** The status line and headers, and the 2-byte body. */
    private static String readResponse(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                break;
            }
            head.append((char) b);
        }
        in.readNBytes(2);
        return head.toString();
    }

    /** Whether the server has closed the connection: end of stream, or a reset. */
    private static boolean readsEnd(Socket socket) throws IOException {
        try {
            return socket.getInputStream().read() < 0;
        } catch (SocketException reset) {
            return true;
        }
    }
}
