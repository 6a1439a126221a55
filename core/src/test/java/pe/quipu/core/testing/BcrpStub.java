package pe.quipu.core.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A local stand-in for the BCRP statistics API (the one edge Quipu does not own), serving whatever the
 * test sets: the real JSON shape, HTML instead of JSON, slow answers, failures. Records request paths.
 */
public final class BcrpStub {

    /** What the stub answers to one request. */
    @FunctionalInterface
    public interface Responder {
        Answer answer(String path) throws Exception;
    }

    public record Answer(int status, String contentType, String body, long delayMillis) {
        public static Answer json(String body) {
            return new Answer(200, "application/json", body, 0);
        }

        public static Answer html(String body) {
            return new Answer(200, "text/html; charset=UTF-8", body, 0);
        }
    }

    private final HttpServer server;
    private static final Responder UNSET = path -> new Answer(503, "text/plain", "no answer set", 0);

    private final AtomicReference<Responder> responder = new AtomicReference<>(UNSET);
    private final List<String> requests = new CopyOnWriteArrayList<>();

    private BcrpStub(HttpServer server) {
        this.server = server;
    }

    public static BcrpStub start() {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            BcrpStub stub = new BcrpStub(server);
            server.createContext("/", stub::handle);
            server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
            server.start();
            return stub;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Base URL in the form of {@code bcrp.baseUrl}. */
    public String baseUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/estadisticas/series/api";
    }

    public void respond(Responder r) {
        responder.set(r);
    }

    public List<String> requests() {
        return requests;
    }

    /** As new: no answer set, no request remembered (a stub shared by several test classes, between them). */
    public void reset() {
        responder.set(UNSET);
        requests.clear();
    }

    public void clearRequests() {
        requests.clear();
    }

    private void handle(HttpExchange exchange) throws IOException {
        String path = exchange.getRequestURI().getRawPath();
        requests.add(path);
        Answer answer;
        try {
            answer = responder.get().answer(path);
        } catch (Exception e) {
            answer = new Answer(500, "text/plain", e.toString(), 0);
        }
        try {
            if (answer.delayMillis() > 0) {
                Thread.sleep(answer.delayMillis());
            }
            byte[] body = answer.body().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", answer.contentType());
            exchange.sendResponseHeaders(answer.status(), body.length == 0 ? -1 : body.length);
            if (body.length > 0) {
                exchange.getResponseBody().write(body);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException ignored) {
            // the client gave up (timeouts are part of what tests exercise)
        } finally {
            exchange.close();
        }
    }
}
