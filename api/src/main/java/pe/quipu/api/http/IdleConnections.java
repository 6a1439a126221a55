package pe.quipu.api.http;

import io.dropwizard.core.setup.Environment;
import org.eclipse.jetty.http.HttpParser;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.internal.HttpConnection;
import org.eclipse.jetty.util.component.LifeCycle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The end of a shutdown's drain delay, before Jetty's graceful shutdown: Jetty's graceful handler answers 503 to any
 * request that reaches it once the shutdown began, including one that arrived a moment before on a connection
 * already accepted. So the connectors first stop accepting (a client that connects now is refused or reset: an error
 * a load balancer retries on another instance, not a 5xx); the requests on the connections already accepted are let
 * in; and the connections between requests are closed. What is left is the requests in flight, which Jetty then lets
 * finish within the grace period.
 */
public final class IdleConnections {

    private static final Logger LOG = LoggerFactory.getLogger(IdleConnections.class);
    private static final long SETTLE_NANOS = 1_000_000_000L;
    /** A connection this young may have its first request on the way. */
    private static final long JUST_ACCEPTED_MILLIS = 100;

    private IdleConnections() {
    }

    /**
     * When the server starts stopping: {@code beginning} (readiness turns 503), then {@code drainMillis} during which
     * connections are still accepted and served, then {@link #quiesce}; Jetty's graceful shutdown follows.
     */
    public static void drainOnStop(Environment environment, Runnable beginning, long drainMillis, String grace) {
        AtomicBoolean begun = new AtomicBoolean();
        environment.lifecycle().addEventListener(new LifeCycle.Listener() {
            @Override
            public void lifeCycleStopping(LifeCycle lifeCycle) {
                if (!(lifeCycle instanceof Server server) || !begun.compareAndSet(false, true)) {
                    return;
                }
                beginning.run();
                if (drainMillis > 0) {
                    LOG.info("Shutting down: /readyz answers 503; still accepting connections for {} ms", drainMillis);
                    try {
                        Thread.sleep(drainMillis);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                int closed = quiesce(server);
                LOG.info("Shutting down: no new connections ({} idle ones closed); the requests in flight have {} to"
                        + " finish", closed, grace);
            }
        });
    }

    /**
     * Stops the connectors accepting, then, for at most {@link #SETTLE_NANOS}, closes every connection as soon as it
     * is between requests: at once those already so; those just accepted, or whose request is arriving or being
     * handled, once it is answered. A request whose headers have not all arrived when the settling time ends is not
     * handled yet, and would meet the graceful shutdown's 503: its connection is closed too, an error its client
     * retries elsewhere. Requests still being handled then are left to finish within Jetty's grace period. Returns
     * how many connections were closed.
     */
    public static int quiesce(Server server) {
        for (Connector connector : server.getConnectors()) {
            if (connector instanceof ServerConnector accepting) {
                accepting.setAccepting(false);
            }
        }
        int closed = 0;
        long deadline = System.nanoTime() + SETTLE_NANOS;
        while (true) {
            boolean last = System.nanoTime() - deadline >= 0;
            boolean waiting = false;
            for (Connector connector : server.getConnectors()) {
                for (EndPoint endPoint : connector.getConnectedEndPoints()) {
                    if (!endPoint.isOpen() || !(endPoint.getConnection() instanceof HttpConnection http)) {
                        continue;
                    }
                    switch (stateOf(http, endPoint)) {
                        case IDLE -> {
                            endPoint.close();
                            closed++;
                        }
                        case ARRIVING -> {
                            if (last) {
                                endPoint.close();
                                closed++;
                            } else {
                                waiting = true;
                            }
                        }
                        // Its answer ends the connection (Connection: close once draining) or leaves it between
                        // requests, to be closed then; a longer one is left to Jetty's grace period.
                        case HANDLED -> waiting = true;
                    }
                }
            }
            if (!waiting || last) {
                return closed;
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return closed;
            }
        }
    }

    enum State {
        /** Between requests, nothing of the next one read. */
        IDLE,
        /** Just accepted (its first request may be on its way), or a request whose headers have not all arrived. */
        ARRIVING,
        /** A request past its headers: handled, or about to be. */
        HANDLED
    }

    static State stateOf(HttpConnection http, EndPoint endPoint) {
        HttpParser parser = http.getParser();
        if (!parser.inHeaderState()) {
            return State.HANDLED;
        }
        boolean justAccepted = System.currentTimeMillis() - endPoint.getCreatedTimeStamp() < JUST_ACCEPTED_MILLIS;
        return parser.isStart() && http.isRequestBufferEmpty() && !justAccepted ? State.IDLE : State.ARRIVING;
    }
}
