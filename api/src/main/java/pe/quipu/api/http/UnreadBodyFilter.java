package pe.quipu.api.http;

import io.dropwizard.core.setup.Environment;
import jakarta.annotation.Priority;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import org.eclipse.jetty.ee10.servlet.ServletContextRequest;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Request;

import java.io.IOException;
import java.time.Duration;
import java.util.EnumSet;

/**
 * An error is often answered before the request body was read (401 and 403 from the filters, 413, 415). Jetty
 * then drops the connection without saying so, and a client that reuses it fails its next request, or never
 * sees the answer because the connection was reset while it was still sending. So, for error answers, the rest
 * of the body is read and dropped first, but only while it arrives fast: at most {@link #MAX_DRAINED_BYTES}, and
 * only until it goes quiet for {@link #QUIET} or {@link #MAX_WAIT} has passed. A body that is not all in by then
 * (a stalled or slow client) does not hold the answer or the worker: the answer goes out at once with
 * {@code Connection: close}.
 *
 * <p>Reads never block: they take what Jetty has already received (the servlet stream cannot tell "nothing yet" from
 * "the end" without blocking, so the drain reads from Jetty's request underneath it).
 */
@Priority(Priorities.USER)
public final class UnreadBodyFilter implements ContainerResponseFilter {

    /** Enough for any body a client sends by mistake; more is not worth reading. */
    static final long MAX_DRAINED_BYTES = 64 * 1024;
    /** A body still arriving has no gap this long on a working connection. */
    static final Duration QUIET = Duration.ofMillis(50);
    /** The most an error answer waits for the rest of a body. */
    static final Duration MAX_WAIT = Duration.ofSeconds(1);
    private static final long POLL_NANOS = Duration.ofMillis(2).toNanos();

    /** The request attribute holding Jetty's request under the servlet one (see {@link JettyRequestAttribute}). */
    private static final String JETTY_REQUEST = UnreadBodyFilter.class.getName() + ".jetty-request";

    /** Registers the filter with Jersey and, on the servlet context, what it needs to reach Jetty's request. */
    public static void install(Environment environment) {
        environment.jersey().register(new UnreadBodyFilter());
        environment.servlets().addFilter("quipu-jetty-request", new JettyRequestAttribute())
                .addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST), false, "/*");
    }

    @Override
    public void filter(ContainerRequestContext request, ContainerResponseContext response) {
        if (response.getStatus() < 400) {
            return;
        }
        // Jersey's properties are the servlet request's attributes.
        if (!(request.getProperty(JETTY_REQUEST) instanceof Request jetty) || !drained(jetty)) {
            response.getHeaders().putSingle("Connection", "close");
        }
    }

    /** Reads and drops the rest of the body; false when it did not all arrive in time, or was too long. */
    private static boolean drained(Request jetty) {
        long started = System.nanoTime();
        long lastArrival = started;
        long total = 0;
        while (true) {
            Content.Chunk chunk = jetty.read();
            long now = System.nanoTime();
            if (chunk == null) {
                if (now - lastArrival > QUIET.toNanos() || now - started > MAX_WAIT.toNanos()) {
                    return false;
                }
                if (!pause()) {
                    return false;
                }
                continue;
            }
            try {
                if (Content.Chunk.isFailure(chunk)) {
                    return false; // the client went away, or the body was malformed: nothing more to read
                }
                total += chunk.remaining();
                if (chunk.isLast()) {
                    return true;
                }
            } finally {
                chunk.release();
            }
            if (total > MAX_DRAINED_BYTES) {
                return false;
            }
            lastArrival = now;
        }
    }

    /**
     * Puts Jetty's request in an attribute of the servlet request: Jersey hands singletons a proxy of the servlet
     * request, from which Jetty cannot find its own.
     */
    private static final class JettyRequestAttribute implements Filter {
        @Override
        public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
                throws IOException, ServletException {
            request.setAttribute(JETTY_REQUEST, ServletContextRequest.getServletContextRequest(request));
            chain.doFilter(request, response);
        }
    }

    private static boolean pause() {
        try {
            Thread.sleep(Duration.ofNanos(POLL_NANOS));
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
