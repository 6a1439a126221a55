package pe.quipu.api.training;

import org.eclipse.jetty.server.ServerConnector;

import java.io.IOException;
import java.nio.channels.ServerSocketChannel;
import java.time.Duration;

/**
 * Restarts a started connector on another accept channel (the held port's restore, {@link WarmUp}) without the race
 * of a plain stop and start in Jetty 12.
 *
 * <p>Jetty's connector stop interrupts its acceptor threads and returns without waiting for them to leave. One that
 * has not left yet when the connector starts again sees it running and goes on accepting, now on the new channel:
 * interrupted there, a blocking {@code accept} throws {@code ClosedByInterruptException}, which closes the new
 * channel, and the port refuses every connection from then on. A loop of stop and start on a real connector lost its
 * channel in about 3 % of restarts (ConnectorRestartTest). Here the restart waits until the old acceptors have left,
 * which the names Jetty gives their threads while they run tell (it restores each pool thread's name as its acceptor
 * leaves).
 */
final class ConnectorRestart {

    /** How long the old acceptors may take to leave; they leave within milliseconds once interrupted. */
    static final Duration PATIENCE = Duration.ofSeconds(10);

    private ConnectorRestart() {
    }

    /**
     * Stops {@code connector}, waits for its acceptors to leave, and starts it again accepting on {@code channel}.
     *
     * @throws IOException when an acceptor is still there after {@link #PATIENCE}: the connector is left stopped, as
     *                     a start then could lose the channel
     */
    static void onto(ServerConnector connector, ServerSocketChannel channel) throws Exception {
        String marker = acceptorMarker(connector);
        try {
            connector.stop();
            awaitAcceptorsGone(marker);
        } catch (Exception | Error e) {
            channel.close();
            throw e;
        }
        connector.open(channel);
        connector.setAccepting(true);
        connector.start();
    }

    /**
     * What the name of a thread running one of this connector's acceptors contains: Jetty names it
     * {@code <pool thread>-acceptor-<n>@<hash>-<connector>}, the connector by its name and identity hash first
     * ({@code application@1b2c3d4e{HTTP/1.1, …}{host:port}}).
     */
    static String acceptorMarker(ServerConnector connector) {
        String described = connector.toString();
        int brace = described.indexOf('{');
        return "-" + (brace < 0 ? described : described.substring(0, brace)) + "{";
    }

    private static void awaitAcceptorsGone(String marker) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (acceptorRunning(marker)) {
            if (System.nanoTime() - deadline >= 0) {
                throw new IOException("the connector's acceptor threads had not left " + PATIENCE.toSeconds()
                        + " s after it stopped; not restarting it");
            }
            Thread.sleep(2);
        }
    }

    static boolean acceptorRunning(String marker) {
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            String name = thread.getName();
            if (name.contains("-acceptor-") && name.contains(marker)) {
                return true;
            }
        }
        return false;
    }
}
