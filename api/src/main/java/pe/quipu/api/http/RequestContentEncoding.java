package pe.quipu.api.http;

import com.codahale.metrics.Counter;
import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.HttpHeaders;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.handler.gzip.GzipHandler;

import pe.quipu.api.domain.Text;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import java.util.zip.ZipException;

/**
 * Request bodies sent with {@code Content-Encoding}: Quipu decodes them itself, as it reads them, rather than
 * letting Jetty inflate them (Jetty's inflation turned a body that is not gzip into a 500, and inflates what a
 * reader asks for without knowing the route's limit).
 *
 * <ul>
 *   <li>No encoding, or {@code identity}: the body as sent.</li>
 *   <li>{@code gzip} (or {@code x-gzip}): inflated as it is read, so a reader that stops at its route's limit
 *       (16 KiB for JSON bodies, the batch limit) has inflated no more than that: a gzip bomb is a 413 after a few
 *       KiB of work. A body that does not inflate is a 400 {@code validation_error}.</li>
 *   <li>Anything else: 415 {@code unsupported_media_type} with {@code Accept-Encoding: gzip} (RFC 9110 §15.5.16).</li>
 * </ul>
 *
 * Both refusals come when the resource reads its body, that is after authentication and routing, like the other
 * refusals of a body.
 */
@Priority(Priorities.ENTITY_CODER)
public final class RequestContentEncoding implements ContainerRequestFilter {

    private final Counter inflatedBytes;

    /** @param inflatedBytes counts the bytes inflated from gzip bodies (a metric: a bomb shows there) */
    public RequestContentEncoding(Counter inflatedBytes) {
        this.inflatedBytes = inflatedBytes;
    }

    /** Stops Jetty's own inflation of request bodies on every connector; gzip answers stay as they are. */
    public static void disableJettyInflation(Server server) {
        for (GzipHandler gzip : server.getDescendants(GzipHandler.class)) {
            gzip.setInflateBufferSize(-1);
        }
    }

    @Override
    public void filter(ContainerRequestContext request) {
        List<String> encodings = request.getHeaders().getOrDefault(HttpHeaders.CONTENT_ENCODING, List.of()).stream()
                .flatMap(value -> Arrays.stream(value.split(",")))
                .map(coding -> coding.trim().toLowerCase(Locale.ROOT))
                .filter(coding -> !coding.isEmpty() && !coding.equals("identity"))
                .toList();
        if (encodings.isEmpty()) {
            return;
        }
        InputStream raw = request.getEntityStream();
        boolean gzip = encodings.size() == 1 && (encodings.getFirst().equals("gzip") || encodings.getFirst().equals("x-gzip"));
        request.setEntityStream(gzip ? new GzipBody(raw, inflatedBytes) : new RefusedBody());
    }

    /** A body in an encoding Quipu does not read: refused when a resource reads it. */
    private static final class RefusedBody extends InputStream {
        @Override
        public int read() {
            throw refusal();
        }

        @Override
        public int read(byte[] buffer, int offset, int length) {
            throw refusal();
        }

        @Override
        public int available() {
            return 0;
        }

        private static ApiProblem refusal() {
            return ApiProblem.of(ProblemType.UNSUPPORTED_MEDIA_TYPE,
                    Text.of("http.encoding.gzip_only"),
                    Map.of("Accept-Encoding", "gzip"));
        }
    }

    /**
     * Inflates as it is read, never more than asked for. Faults of the gzip data are a 400; faults of the connection
     * (the client went away, the idle timeout) pass through as the IOExceptions they are.
     */
    private static final class GzipBody extends InputStream {
        private final SourceStream source;
        private final Counter inflatedBytes;
        private GZIPInputStream inflater;

        private GzipBody(InputStream raw, Counter inflatedBytes) {
            this.source = new SourceStream(raw);
            this.inflatedBytes = inflatedBytes;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            int n = read(one, 0, 1);
            return n < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            if (length == 0) {
                return 0;
            }
            try {
                if (inflater == null) {
                    inflater = new GZIPInputStream(source, 8192);
                }
                int n = inflater.read(buffer, offset, length);
                if (n > 0) {
                    inflatedBytes.inc(n);
                }
                return n;
            } catch (ZipException | EOFException e) {
                if (source.failure != null) {
                    throw source.failure;
                }
                throw ApiProblem.of(ProblemType.VALIDATION_ERROR, Text.of("http.encoding.bad_gzip"));
            }
        }

        @Override
        public int available() {
            return 0;
        }

        @Override
        public void close() throws IOException {
            source.close();
        }
    }

    /** The raw body, remembering a failure of the connection so that it is not taken for bad gzip. */
    private static final class SourceStream extends InputStream {
        private final InputStream raw;
        private IOException failure;

        private SourceStream(InputStream raw) {
            this.raw = raw;
        }

        @Override
        public int read() throws IOException {
            try {
                return raw.read();
            } catch (IOException e) {
                failure = e;
                throw e;
            }
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            try {
                return raw.read(buffer, offset, length);
            } catch (IOException e) {
                failure = e;
                throw e;
            }
        }

        @Override
        public void close() throws IOException {
            raw.close();
        }
    }
}
