package pe.quipu.api.testing;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A free port for a server that binds it later (a child JVM, an instance whose port opens after its warm-up). Taken
 * below Linux's ephemeral range (32768-60999 by default), from which every port-0 bind and every outgoing connection
 * of the other tests draws theirs: a port of that range, free when asked, may be some outgoing connection's by the
 * time the server binds it seconds later.
 */
public final class FreePorts {

    private static final int FIRST = 20_000;
    private static final int LAST = 32_000;

    private FreePorts() {
    }

    public static int free() throws IOException {
        for (int tries = 0; tries < 200; tries++) {
            int port = ThreadLocalRandom.current().nextInt(FIRST, LAST);
            try (ServerSocket socket = new ServerSocket(port)) {
                return socket.getLocalPort();
            } catch (IOException taken) {
                // Another's: try another.
            }
        }
        throw new IOException("no free port between " + FIRST + " and " + LAST);
    }
}
