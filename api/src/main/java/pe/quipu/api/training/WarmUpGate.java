package pe.quipu.api.training;

import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.handler.QoSHandler;

import java.time.Duration;
import java.util.Set;
import java.util.function.BooleanSupplier;

/**
 * While the warm-up runs beside the clients, the application connector serves {@link #CONCURRENT} request at a time;
 * the others wait their turn in order of arrival, suspended without holding a thread (Jetty's {@link QoSHandler}).
 * The other processor then goes to the JIT compilers, which compile the request path that the served requests run
 * within seconds, instead of competing with dozens of request threads for a slice of both processors while the
 * clients' requests run interpreted (docs/decisions.md, "Start-up and miss speed"). Once the warm-up is over, every
 * request passes straight through. The probes ({@code /livez}, {@code /readyz}) never wait, nor does the admin
 * connector.
 */
final class WarmUpGate {

    /** Requests served at once while warming up: one, as the warm-up's own single connection measured best. */
    static final int CONCURRENT = 1;
    private static final Set<String> PROBES = Set.of("/livez", "/readyz");

    private WarmUpGate() {
    }

    /**
     * @param handler     the server's handler, which the gate wraps
     * @param application the connector whose requests are gated
     * @param warming     whether the warm-up still runs
     * @param longestWait how long a request may wait for its turn before it is answered 503 (never reached when the
     *                    warm-up's length bounds it)
     */
    static QoSHandler around(Handler handler, Connector application, BooleanSupplier warming, Duration longestWait) {
        QoSHandler gate = new QoSHandler(handler);
        gate.setMaxRequestCount(CONCURRENT);
        gate.setMaxSuspend(longestWait);
        gate.setMaxSuspendedRequestCount(-1);
        gate.include(request -> warming.getAsBoolean() && gated(request, application));
        return gate;
    }

    static boolean gated(Request request, Connector application) {
        return request.getConnectionMetaData().getConnector() == application
                && !PROBES.contains(Request.getPathInContext(request));
    }
}
