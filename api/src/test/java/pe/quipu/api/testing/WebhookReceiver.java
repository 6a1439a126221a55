package pe.quipu.api.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A customer's webhook receiver on 127.0.0.1 for tests: it records every request (headers, raw body) and answers with
 * the behaviours queued by the test, in order, then with {@link #otherwise} (204 by default). A behaviour can answer
 * slowly, redirect, send a body of any size, or close the connection without answering.
 */
public final class WebhookReceiver implements AutoCloseable {

    /** One received request: header names lower-cased, the body as sent. */
    public record Received(String path, Map<String, List<String>> headers, byte[] body, long receivedAtNanos) {
        public String header(String name) {
            List<String> values = headers.get(name.toLowerCase());
            return values == null || values.isEmpty() ? null : values.getFirst();
        }

        /** Headers as the verifier libraries take them: single values by lower-case name. */
        public Map<String, List<String>> headerMap() {
            return headers;
        }

        public String bodyText() {
            return new String(body, java.nio.charset.StandardCharsets.UTF_8);
        }
    }

    /**
     * How to answer one request: {@code bodyBytes} of filler, or {@code content} when set; {@code chunked} sends the
     * body without a Content-Length.
     */
    public record Behaviour(int status, Duration delay, long bodyBytes, String location, byte[] content,
                            boolean chunked) {
        public Behaviour(int status, Duration delay, long bodyBytes, String location) {
            this(status, delay, bodyBytes, location, null, false);
        }

        public static Behaviour status(int status) {
            return new Behaviour(status, Duration.ZERO, 0, null);
        }

        public static Behaviour slow(Duration delay) {
            return new Behaviour(204, delay, 0, null);
        }

        public static Behaviour redirect(String location) {
            return new Behaviour(302, Duration.ZERO, 0, location);
        }

        public static Behaviour body(int status, long bytes) {
            return new Behaviour(status, Duration.ZERO, bytes, null);
        }

        /** Answers these exact bytes. */
        public static Behaviour body(int status, byte[] content) {
            return new Behaviour(status, Duration.ZERO, content.length, null, content.clone(), false);
        }

        /** {@code bytes} of filler in chunked transfer encoding: no Content-Length announces the size. */
        public static Behaviour chunked(int status, long bytes) {
            return new Behaviour(status, Duration.ZERO, bytes, null, null, true);
        }

        /** Closes the connection without an answer. */
        public static Behaviour hangUp() {
            return new Behaviour(-1, Duration.ZERO, 0, null);
        }
    }

    private final HttpServer server;
    private final BlockingQueue<Received> received = new LinkedBlockingQueue<>();
    private final List<Received> all = java.util.Collections.synchronizedList(new ArrayList<>());
    private final ConcurrentLinkedDeque<Behaviour> queued = new ConcurrentLinkedDeque<>();
    private volatile Behaviour otherwise = Behaviour.status(204);

    private final String host;

    private WebhookReceiver(String host) throws IOException {
        this.host = host;
        server = HttpServer.create(new InetSocketAddress(host, 0), 200);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.createContext("/", this::handle);
        server.start();
    }

    public static WebhookReceiver start() {
        return start("127.0.0.1");
    }

    /** A receiver listening on another loopback address only (e.g. {@code 127.0.0.2}). */
    public static WebhookReceiver start(String loopbackAddress) {
        try {
            return new WebhookReceiver(loopbackAddress);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    public int port() {
        return server.getAddress().getPort();
    }

    /** {@code http://127.0.0.1:<port><path>} (or the address it was started on). */
    public String url(String path) {
        return "http://" + host + ":" + port() + path;
    }

    /** The next requests are answered so, in order. */
    public WebhookReceiver then(Behaviour... behaviours) {
        queued.addAll(List.of(behaviours));
        return this;
    }

    /** Requests beyond the queued behaviours are answered so. */
    public WebhookReceiver otherwise(Behaviour behaviour) {
        otherwise = behaviour;
        return this;
    }

    /** The next request received, waiting up to {@code timeout}; fails when none comes. */
    public Received next(Duration timeout) {
        try {
            Received r = received.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (r == null) {
                throw new AssertionError("no webhook request within " + timeout);
            }
            return r;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** Whether a request comes within {@code timeout} (consumed if so). */
    public boolean anyWithin(Duration timeout) {
        try {
            return received.poll(timeout.toMillis(), TimeUnit.MILLISECONDS) != null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Every request received so far, in order of arrival. */
    public List<Received> all() {
        synchronized (all) {
            return List.copyOf(all);
        }
    }

    private void handle(HttpExchange exchange) throws IOException {
        byte[] body;
        try (InputStream in = exchange.getRequestBody()) {
            body = in.readAllBytes();
        }
        Map<String, List<String>> headers = new TreeMap<>();
        exchange.getRequestHeaders().forEach((name, values) -> headers.put(name.toLowerCase(), List.copyOf(values)));
        Received r = new Received(exchange.getRequestURI().getPath(), headers, body, System.nanoTime());
        all.add(r);
        received.add(r);
        Behaviour b = queued.poll();
        if (b == null) {
            b = otherwise;
        }
        try {
            if (!b.delay().isZero()) {
                Thread.sleep(b.delay().toMillis());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (b.status() < 0) {
            exchange.close();
            throw new IOException("hanging up on purpose");
        }
        if (b.location() != null) {
            exchange.getResponseHeaders().add("Location", b.location());
        }
        if (b.bodyBytes() == 0) {
            exchange.sendResponseHeaders(b.status(), -1);
            exchange.close();
            return;
        }
        exchange.sendResponseHeaders(b.status(), b.chunked() ? 0 : b.bodyBytes());
        try (OutputStream out = exchange.getResponseBody()) {
            if (b.content() != null) {
                out.write(b.content());
                return;
            }
            byte[] chunk = new byte[8192];
            java.util.Arrays.fill(chunk, (byte) 'x');
            long left = b.bodyBytes();
            while (left > 0) {
                int n = (int) Math.min(chunk.length, left);
                out.write(chunk, 0, n);
                left -= n;
            }
        } catch (IOException ignored) {
            // the client stopped reading (over the body limit): expected
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
