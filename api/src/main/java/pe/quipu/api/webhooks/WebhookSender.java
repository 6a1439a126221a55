package pe.quipu.api.webhooks;

import org.eclipse.jetty.client.BytesRequestContent;
import org.eclipse.jetty.client.Connection;
import org.eclipse.jetty.client.Destination;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.Response;
import org.eclipse.jetty.client.Result;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.http.HttpCookieStore;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

import javax.net.ssl.SSLException;
import java.io.ByteArrayOutputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.channels.UnresolvedAddressException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.WeakHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;

/**
 * Sends one attempt with Jetty's asynchronous client: the connection goes to the endpoint's pinned address (never a
 * fresh DNS answer), while the URL's host stays in {@code Host}, in TLS SNI and in the certificate check. Redirects
 * are not followed, no proxy or cookie is used, and at most {@link #MAX_HEAD} bytes of a response's head and
 * {@link #MAX_BODY} bytes of its body are read.
 */
final class WebhookSender implements AutoCloseable {

    /**
     * Constant across releases so that receivers can allow-list it; the number is the version of the delivery
     * format (envelope, headers, signatures), which changes only with a new major version of the webhooks.
     */
    static final String USER_AGENT = "Quipu-Webhooks/1.0";
    /** Responses over this many bytes fail the attempt ({@code body_too_large}); the spec's 1 MB. */
    static final int MAX_BODY = 1 << 20;
    /**
     * A response whose head (status line, headers, the empty line) is longer fails the attempt
     * ({@code invalid_response}). Jetty's client sets no limit of its own, and keeps a header's value whole in memory
     * while it is parsed: a receiver that sends one header line without end would fill the heap.
     */
    static final int MAX_HEAD = 8 * 1024;
    /** The start of a response body kept in the attempt's record. */
    static final int KEPT_BODY = 2048;

    private final HttpClient client;
    private final Duration timeout;
    /**
     * Connections that have carried a request: on https, their TLS handshake completed. Held weakly, so a closed
     * connection leaves with its pool.
     */
    private final Set<Connection> provenConnections = Collections.newSetFromMap(
            Collections.synchronizedMap(new WeakHashMap<>()));

    /** What one attempt sends. */
    record Attempt(UUID endpointId, String attemptId, String eventId, String eventType, URI url, InetAddress pinned,
                   byte[] body, Signatures.Secrets secrets, long timestamp) {
    }

    /** What came of it: {@code error} is null exactly when the attempt succeeded. */
    record Outcome(Integer responseCode, String error, int latencyMs, String responseBody) {
        static Outcome blocked() {
            return new Outcome(null, ErrorKind.BLOCKED_ADDRESS, 0, null);
        }
    }

    /**
     * The connection's address is chosen per request, by its tag. The tag also makes one destination (one connection
     * pool, bounded by {@code perEndpointConcurrency}) per endpoint: endpoints sharing a host (a hosted receiver
     * serving many customers) never wait in each other's queue.
     */
    private record Pin(UUID endpointId, InetAddress address) {
    }

    WebhookSender(Duration timeout, int perEndpointConcurrency) {
        this.timeout = timeout;
        QueuedThreadPool threads = new QueuedThreadPool(64, 4);
        threads.setName("quipu-webhook-client");
        threads.setDaemon(true);
        client = new HttpClient();
        client.setExecutor(threads);
        client.setFollowRedirects(false);
        client.setConnectTimeout(timeout.toMillis());
        client.setIdleTimeout(30_000);
        client.setDestinationIdleTimeout(60_000);
        client.setMaxConnectionsPerDestination(perEndpointConcurrency);
        client.setMaxRequestsQueuedPerDestination(100_000);
        client.setUserAgentField(new HttpField(HttpHeader.USER_AGENT, USER_AGENT));
        client.setMaxResponseHeadersSize(MAX_HEAD);
        client.setHttpCookieStore(new HttpCookieStore.Empty());
        client.setSocketAddressResolver((host, port, context, promise) -> {
            // Only a pinned address is ever connected to; a request without one is refused, never resolved.
            Destination destination = (Destination) context.get(Destination.CONTEXT_KEY);
            if (destination != null && destination.getOrigin().getTag() instanceof Pin pin) {
                promise.succeeded(List.of(new InetSocketAddress(pin.address(), port)));
            } else {
                promise.failed(new UnknownHostException("no pinned address for " + host));
            }
        });
    }

    void start() throws Exception {
        client.start();
        // Response bodies are counted as sent, not after decompression.
        client.getContentDecoderFactories().clear();
    }

    @Override
    public void close() throws Exception {
        client.stop();
    }

    CompletableFuture<Outcome> send(Attempt attempt) {
        CompletableFuture<Outcome> outcome = new CompletableFuture<>();
        String timestamp = Long.toString(attempt.timestamp());
        Request request = client.newRequest(attempt.url())
                .method(HttpMethod.POST)
                .tag(new Pin(attempt.endpointId(), attempt.pinned()))
                .timeout(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)
                .headers(h -> h
                        .put("x-quipu-event", attempt.eventType())
                        .put("x-quipu-delivery", attempt.attemptId())
                        .put("x-quipu-timestamp", timestamp)
                        .put("x-quipu-signature", Signatures.quipuSignature(attempt.timestamp(), attempt.body(),
                                attempt.secrets()))
                        .put("webhook-id", attempt.eventId())
                        .put("webhook-timestamp", timestamp)
                        .put("webhook-signature", Signatures.standardSignature(attempt.eventId(),
                                attempt.timestamp(), attempt.body(), attempt.secrets())))
                .body(new BytesRequestContent("application/json", attempt.body()))
                .onRequestCommit(committed -> {
                    if (committed.getConnection() != null) {
                        provenConnections.add(committed.getConnection());
                    }
                });
        long started = System.nanoTime();
        try {
            request.send(new Collector(outcome, started, "https".equalsIgnoreCase(attempt.url().getScheme())));
        } catch (RuntimeException e) {
            outcome.complete(new Outcome(null, kindOf(e), elapsed(started), null));
        }
        return outcome;
    }

    /** Keeps the start of the body, counts the rest, and stops reading past {@link #MAX_BODY}. */
    private final class Collector implements Response.Listener {
        private final CompletableFuture<Outcome> outcome;
        private final long started;
        private final boolean https;
        private final ByteArrayOutputStream kept = new ByteArrayOutputStream();
        private long read;
        /** The status line's code, once it was read: what the receiver said, before anything failed. */
        private Integer answered;

        Collector(CompletableFuture<Outcome> outcome, long started, boolean https) {
            this.outcome = outcome;
            this.started = started;
            this.https = https;
        }

        @Override
        public void onBegin(Response response) {
            answered = response.getStatus() > 0 ? response.getStatus() : null;
        }

        @Override
        public void onHeaders(Response response) {
            if (response.getHeaders().getLongField(HttpHeader.CONTENT_LENGTH) > MAX_BODY) {
                response.abort(new BodyTooLarge());
            }
        }

        @Override
        public void onContent(Response response, ByteBuffer content) {
            read += content.remaining();
            if (read > MAX_BODY) {
                response.abort(new BodyTooLarge());
                return;
            }
            int room = KEPT_BODY - kept.size();
            if (room > 0) {
                byte[] bytes = new byte[Math.min(room, content.remaining())];
                content.get(bytes);
                kept.write(bytes, 0, bytes.length);
            }
        }

        @Override
        public void onComplete(Result result) {
            int latency = elapsed(started);
            Response response = result.getResponse();
            Integer status = response == null || response.getStatus() <= 0 ? null : response.getStatus();
            String body = text(kept.toByteArray());
            if (result.isFailed()) {
                String kind = kindOf(result.getFailure());
                if (kind.equals(ErrorKind.INVALID_RESPONSE)) {
                    // Jetty puts a code of its own on a response it could not parse (400 for a bad status line).
                    status = answered;
                }
                if (https && kind.equals(ErrorKind.CONNECTION_REFUSED) && !(rootConnectFailure(result.getFailure()))
                        && !provenConnections.contains(result.getRequest().getConnection())) {
                    // The TCP connection was made, but no request ever went through it: the TLS handshake did not
                    // complete. Jetty does not always carry the handshake's SSLException to the request (the server
                    // may close first), so the kind follows from what happened, not from the exception's class.
                    kind = ErrorKind.TLS;
                }
                outcome.complete(new Outcome(status, kind, latency, body));
            } else if (status >= 200 && status < 300) {
                outcome.complete(new Outcome(status, null, latency, body));
            } else if (status >= 300 && status < 400) {
                outcome.complete(new Outcome(status, ErrorKind.REDIRECT, latency, body));
            } else {
                outcome.complete(new Outcome(status, ErrorKind.HTTP_STATUS, latency, body));
            }
        }
    }

    /** The failure kind of contract §6 that a transport failure is, by the first cause that tells. */
    static String kindOf(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            switch (t) {
                case BodyTooLarge _ -> {
                    return ErrorKind.BODY_TOO_LARGE;
                }
                case HttpException _ -> {
                    // Jetty's HTTP parser refused the answer: a head over MAX_HEAD, a status line or header that is
                    // not HTTP (whatever else it caught while parsing comes wrapped in one of these too).
                    return ErrorKind.INVALID_RESPONSE;
                }
                case TimeoutException _, SocketTimeoutException _ -> {
                    return ErrorKind.TIMEOUT;
                }
                case SSLException _ -> {
                    return ErrorKind.TLS;
                }
                case UnknownHostException _, UnresolvedAddressException _ -> {
                    return ErrorKind.DNS;
                }
                case ConnectException _ -> {
                    return ErrorKind.CONNECTION_REFUSED;
                }
                default -> {
                }
            }
        }
        // A connection reset or closed before a complete answer: the endpoint would not take the delivery.
        return ErrorKind.CONNECTION_REFUSED;
    }

    /** Whether the failure is that no TCP connection could be made at all. */
    private static boolean rootConnectFailure(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof ConnectException) {
                return true;
            }
        }
        return false;
    }

    private static int elapsed(long started) {
        return (int) Math.min(Integer.MAX_VALUE, (System.nanoTime() - started) / 1_000_000);
    }

    /** The kept bytes as text for the record: invalid UTF-8 replaced, NULs (which PostgreSQL text refuses) dropped. */
    private static String text(byte[] bytes) {
        if (bytes.length == 0) {
            return null;
        }
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPLACE)
                    .onUnmappableCharacter(CodingErrorAction.REPLACE)
                    .decode(ByteBuffer.wrap(bytes)).toString().replace("\u0000", "");
        } catch (java.nio.charset.CharacterCodingException e) {
            return null;
        }
    }

    private static final class BodyTooLarge extends Exception {
        BodyTooLarge() {
            super("response body over " + MAX_BODY + " bytes", null, false, false);
        }
    }
}
