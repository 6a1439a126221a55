package pe.quipu.api.training;

import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The held port's restore on a real Jetty connector: started not accepting on a loopback channel (as during the
 * warm-up), then restarted on another channel, which must then take connections every time.
 */
class ConnectorRestartTest {

    private static final int RESTARTS = 300;

    private final Server server = new Server();

    @BeforeEach
    void start() throws Exception {
        server.setHandler(new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                response.setStatus(204);
                callback.succeeded();
                return true;
            }
        });
        server.start();
    }

    @AfterEach
    void stop() throws Exception {
        server.stop();
    }

    @Test
    void the_new_channel_takes_connections_after_every_restart() throws Exception {
        Random random = new Random(7);
        List<String> lost = new ArrayList<>();
        for (int i = 0; i < RESTARTS; i++) {
            ServerConnector connector = new ServerConnector(server, 1, 1, new HttpConnectionFactory());
            connector.setName("application");
            connector.open(loopback());
            connector.setAccepting(false);
            connector.start();
            // The warm-up: a few milliseconds here, where a plain stop and start loses the channel most often.
            Thread.sleep(random.nextInt(8));
            ServerSocketChannel next = loopback();
            try {
                ConnectorRestart.onto(connector, next);
                int port = connector.getLocalPort();
                // The old acceptor, had it stayed, would close the channel within milliseconds.
                Thread.sleep(10);
                if (!answers(port)) {
                    lost.add("restart " + i + ": port " + port + (next.isOpen() ? " open" : " closed"));
                }
            } finally {
                connector.stop();
            }
        }
        assertThat(lost).as("restarts after which the port refused a connection").isEmpty();
    }

    @Test
    void the_marker_names_the_threads_running_the_connectors_acceptors_and_no_others() throws Exception {
        ServerConnector connector = new ServerConnector(server, 1, 1, new HttpConnectionFactory());
        connector.setName("application");
        ServerConnector other = new ServerConnector(server, 1, 1, new HttpConnectionFactory());
        other.setName("application");
        connector.open(loopback());
        connector.start();
        try {
            String marker = ConnectorRestart.acceptorMarker(connector);
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (!ConnectorRestart.acceptorRunning(marker) && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertThat(ConnectorRestart.acceptorRunning(marker)).as("its acceptor, running").isTrue();
            assertThat(ConnectorRestart.acceptorRunning(ConnectorRestart.acceptorMarker(other)))
                    .as("another connector of the same name, never started").isFalse();
            connector.stop();
            deadline = System.nanoTime() + 5_000_000_000L;
            while (ConnectorRestart.acceptorRunning(marker) && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertThat(ConnectorRestart.acceptorRunning(marker)).as("its acceptor, once stopped").isFalse();
        } finally {
            connector.stop();
        }
    }

    private static ServerSocketChannel loopback() throws IOException {
        ServerSocketChannel channel = ServerSocketChannel.open();
        channel.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        return channel;
    }

    private static boolean answers(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 2_000);
            socket.setSoTimeout(5_000);
            socket.getOutputStream().write("GET / HTTP/1.1\r\nHost: quipu\r\nConnection: close\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            return socket.getInputStream().read() >= 0;
        } catch (IOException e) {
            return false;
        }
    }
}
