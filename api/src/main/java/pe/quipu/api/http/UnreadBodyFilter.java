package pe.quipu.api.http;

import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;

import java.io.IOException;
import java.io.InputStream;

/**
 * An error is often answered before the request body was read (401 and 403 from the filters, 413, 415). Jetty
 * then drops the connection without saying so, and a client that reuses it fails its next request, or never
 * sees the answer because the connection was reset while it was still sending. So, for error answers, the rest
 * of the body is read and dropped first, up to {@link #MAX_DRAINED_BYTES}; beyond that the answer says
 * {@code Connection: close}.
 */
@Priority(Priorities.USER)
public final class UnreadBodyFilter implements ContainerResponseFilter {

    /** Enough for any body a client sends by mistake; more is not worth reading. */
    static final long MAX_DRAINED_BYTES = 1024 * 1024;

    @Override
    public void filter(ContainerRequestContext request, ContainerResponseContext response) throws IOException {
        if (response.getStatus() < 400) {
            return;
        }
        // A decoded body is drained as it arrived (asking the decoder whether it has an entity would decode).
        InputStream raw = RequestContentEncoding.rawBody(request);
        if (raw == null && !request.hasEntity()) {
            return;
        }
        if (!drained(raw != null ? raw : request.getEntityStream())) {
            response.getHeaders().putSingle("Connection", "close");
        }
    }

    /** Reads and drops the rest of the body; false when more than {@link #MAX_DRAINED_BYTES} remained. */
    private static boolean drained(InputStream body) throws IOException {
        byte[] buffer = new byte[8192];
        long total = 0;
        for (int n = body.read(buffer); n >= 0; n = body.read(buffer)) {
            total += n;
            if (total > MAX_DRAINED_BYTES) {
                return false;
            }
        }
        return true;
    }
}
