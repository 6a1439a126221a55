package pe.quipu.core.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import pe.quipu.core.testing.BcrpStub.Answer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.YearMonth;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A local stand-in for SUNAT's exchange-rate publication (contract §12), the other edge of rates Quipu does not own:
 * {@code POST /cl-at-ittipcam/tcS01Alias/listarTipoCambio} with {@code {"anio":…,"mes":…,"token":…}}, answered with
 * whatever the test sets for the month asked ({@code mes} counted from 0): SUNAT's JSON array, HTML, slow answers,
 * failures. Records every request whole (method, path, the headers SUNAT's page sends, body).
 */
public final class SunatStub {

    public static final String PATH = "/cl-at-ittipcam/tcS01Alias/listarTipoCambio";

    /** What the stub answers for one month. */
    @FunctionalInterface
    public interface Responder {
        Answer answer(YearMonth month) throws Exception;
    }

    /**
     * One request as received.
     *
     * @param anio the body's {@code anio}, or -1 when missing
     * @param mes  the body's {@code mes} as sent (January is 0), or -1 when missing
     */
    public record Request(String method, String path, String contentType, String origin, String referer, String body,
                          int anio, int mes, String token) {
        /** The month asked for. */
        public YearMonth month() {
            return YearMonth.of(anio, mes + 1);
        }
    }

    private static final Responder UNSET = month -> new Answer(503, "text/plain", "no answer set", 0);

    private final HttpServer server;
    private final ObjectMapper json = new ObjectMapper();
    private final AtomicReference<Responder> responder = new AtomicReference<>(UNSET);
    private final List<Request> requests = new CopyOnWriteArrayList<>();

    private SunatStub(HttpServer server) {
        this.server = server;
    }

    public static SunatStub start() {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            SunatStub stub = new SunatStub(server);
            server.createContext("/", stub::handle);
            server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
            server.start();
            return stub;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Base URL in the form of {@code sunatFx.baseUrl}. */
    public String baseUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    public void respond(Responder r) {
        responder.set(r);
    }

    public List<Request> requests() {
        return requests;
    }

    /** The months asked for, in the order asked. */
    public List<YearMonth> months() {
        return requests.stream().map(Request::month).toList();
    }

    /** As new: no answer set, no request remembered (a stub shared by several test classes, between them). */
    public void reset() {
        responder.set(UNSET);
        requests.clear();
    }

    public void clearRequests() {
        requests.clear();
    }

    /** Closes the port, for a stub of one test's own. */
    public void stop() {
        server.stop(0);
    }

    private void handle(HttpExchange exchange) throws IOException {
        String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        int anio = -1;
        int mes = -1;
        String token = null;
        try {
            JsonNode parsed = json.readTree(body);
            anio = parsed.path("anio").isInt() ? parsed.path("anio").asInt() : -1;
            mes = parsed.path("mes").isInt() ? parsed.path("mes").asInt() : -1;
            token = parsed.path("token").isTextual() ? parsed.path("token").asText() : null;
        } catch (IOException ignored) {
            // recorded as it came; answered below
        }
        String path = exchange.getRequestURI().getRawPath();
        var headers = exchange.getRequestHeaders();
        requests.add(new Request(exchange.getRequestMethod(), path, headers.getFirst("Content-Type"),
                headers.getFirst("Origin"), headers.getFirst("Referer"), body, anio, mes, token));
        Answer answer;
        if (!PATH.equals(path) || !"POST".equals(exchange.getRequestMethod())) {
            answer = new Answer(404, "text/html", "<html><body>No encontrado</body></html>", 0);
        } else if (anio < 0 || mes < 0 || mes > 11) {
            answer = new Answer(400, "text/html", "<html><body>Solicitud no válida</body></html>", 0);
        } else {
            try {
                answer = responder.get().answer(YearMonth.of(anio, mes + 1));
            } catch (Exception e) {
                answer = new Answer(500, "text/plain", e.toString(), 0);
            }
        }
        try {
            if (answer.delayMillis() > 0) {
                Thread.sleep(answer.delayMillis());
            }
            byte[] bytes = answer.body().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", answer.contentType());
            exchange.sendResponseHeaders(answer.status(), bytes.length == 0 ? -1 : bytes.length);
            if (bytes.length > 0) {
                exchange.getResponseBody().write(bytes);
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
