package pe.quipu.api.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.testing.DropwizardTestSupport;
import pe.quipu.api.QuipuApplication;
import pe.quipu.api.QuipuConfiguration;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Requests to one running Quipu over real HTTP, from 127.0.0.1 (or another loopback address, {@link #from}): {@code key} is sent as
 * {@code Authorization: Bearer <key>} when not null, {@code headers} are name, value, name, value…
 *
 * <p>Every answer of the application connector is checked against the OpenAPI document ({@link OpenApiContract}):
 * one that breaks it fails the test that received it.
 */
public abstract class QuipuClient {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    /** Clients bound to other loopback addresses ({@link #from}), one per address. */
    private static final Map<String, HttpClient> FROM = new ConcurrentHashMap<>();

    public final ObjectMapper json = new ObjectMapper().findAndRegisterModules();

    /** The running application this client talks to. */
    protected abstract DropwizardTestSupport<QuipuConfiguration> support();

    /** The HTTP client requests go out on: from 127.0.0.1 unless {@link #from} said otherwise. */
    HttpClient http() {
        return HTTP;
    }

    /**
     * The same application, with requests sent from {@code loopbackAddress} (any of 127.0.0.0/8, all loopback), so
     * that the application sees another client address: for limits and records per client address.
     */
    public QuipuClient from(String loopbackAddress) {
        QuipuClient to = this;
        HttpClient client = FROM.computeIfAbsent(loopbackAddress, a -> HttpClient.newBuilder()
                .connectTimeout(Duration.ofSeconds(5)).localAddress(InetAddress.ofLiteral(a)).build());
        return new QuipuClient() {
            @Override
            protected DropwizardTestSupport<QuipuConfiguration> support() {
                return to.support();
            }

            @Override
            HttpClient http() {
                return client;
            }
        };
    }

    public QuipuApplication application() {
        return (QuipuApplication) support().getApplication();
    }

    private int port() {
        return support().getLocalPort();
    }

    public URI uri(String pathAndQuery) {
        return URI.create("http://127.0.0.1:" + port() + pathAndQuery);
    }

    /** The admin connector: health checks, metrics, operator tasks. */
    public URI adminUri(String path) {
        return URI.create("http://127.0.0.1:" + support().getAdminPort() + path);
    }

    public HttpResponse<String> get(String pathAndQuery, String key, String... headers) {
        return send(HttpRequest.newBuilder(uri(pathAndQuery)).GET(), key, headers);
    }

    public HttpResponse<String> post(String path, String key, String contentType, String body, String... headers) {
        return send(withBody(path, "POST", contentType, body), key, headers);
    }

    public HttpResponse<String> put(String path, String key, String contentType, String body, String... headers) {
        return send(withBody(path, "PUT", contentType, body), key, headers);
    }

    public HttpResponse<String> patch(String path, String key, String contentType, String body, String... headers) {
        return send(withBody(path, "PATCH", contentType, body), key, headers);
    }

    /** A request without a body. */
    public HttpResponse<String> request(String method, String pathAndQuery, String key, String... headers) {
        return send(HttpRequest.newBuilder(uri(pathAndQuery)).method(method, HttpRequest.BodyPublishers.noBody()),
                key, headers);
    }

    public HttpResponse<String> send(HttpRequest.Builder builder, String key, String... headers) {
        if (key != null) {
            builder.header("Authorization", "Bearer " + key);
        }
        for (int i = 0; i + 1 < headers.length; i += 2) {
            builder.header(headers[i], headers[i + 1]);
        }
        try {
            HttpRequest request = builder.timeout(Duration.ofSeconds(30)).build();
            HttpResponse<String> response = http().send(request, HttpResponse.BodyHandlers.ofString());
            if (request.uri().getPort() == port()) {
                URI uri = request.uri();
                OpenApiContract.get().check(new OpenApiContract.Answer(request.method(),
                        uri.getRawPath() + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery()),
                        response.statusCode(), response.headers()::firstValue, response.body(), metered()));
            }
            return response;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * Sends a request written by hand, byte for byte, for what java.net.URI refuses to build (a malformed escape,
     * a malformed request line), and returns the whole answer as text.
     */
    public String raw(String request) {
        String answer;
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            socket.getOutputStream().flush();
            answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        checkRaw(request, answer);
        return answer;
    }

    /** A hand-written request's answer, checked like any other when both take the ordinary form. */
    private void checkRaw(String request, String answer) {
        RawResponse response;
        try {
            response = RawResponse.parse(answer);
        } catch (RuntimeException e) {
            return; // no HTTP/1.1 answer (the connection was closed): nothing was served to check
        }
        check(request, response);
    }

    /**
     * The answer a test read off its own socket to a request it wrote there (from its request line on): parsed, and
     * checked against the OpenAPI document like every answer of {@link #raw}.
     */
    public RawResponse answerTo(String request, String answer) {
        RawResponse response = RawResponse.parse(answer);
        check(request, response);
        return response;
    }

    private void check(String request, RawResponse response) {
        String[] requestLine = request.substring(0, Math.max(0, request.indexOf("\r\n"))).split(" ");
        if (requestLine.length == 3) {
            OpenApiContract.get().check(new OpenApiContract.Answer(requestLine[0], requestLine[1], response.status(),
                    response::header, response.body(), metered()));
        }
    }

    /** Whether this instance meters (and so sends the rate and quota headers). */
    private boolean metered() {
        return support().getConfiguration().getMetering().isEnabled();
    }

    /** A GET written by hand (see {@link #raw}), with the key when given. */
    public String rawGet(String pathAndQuery, String key) {
        return raw("GET " + pathAndQuery + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + (key == null ? "" : "Authorization: Bearer " + key + "\r\n") + "Connection: close\r\n\r\n");
    }

    /** Runs an operator task on the admin connector ({@code parameters}: name, value, name, value…). */
    public HttpResponse<String> task(String name, String... parameters) {
        StringBuilder query = new StringBuilder();
        for (int i = 0; i + 1 < parameters.length; i += 2) {
            query.append(query.isEmpty() ? "?" : "&")
                    .append(java.net.URLEncoder.encode(parameters[i], StandardCharsets.UTF_8)).append('=')
                    .append(java.net.URLEncoder.encode(parameters[i + 1], StandardCharsets.UTF_8));
        }
        return send(HttpRequest.newBuilder(adminUri("/tasks/" + name + query)).POST(HttpRequest.BodyPublishers.noBody()),
                adminToken());
    }

    /** The operator tasks' admin token of this instance (development: generated into its data folder). */
    public String adminToken() {
        return pe.quipu.api.operations.AdminToken.read(
                java.nio.file.Path.of(support().getConfiguration().getAdminTasks().effectiveTokenFile()), "test");
    }

    public JsonNode body(HttpResponse<String> response) {
        try {
            return json.readTree(response.body());
        } catch (IOException e) {
            throw new UncheckedIOException("not JSON: " + response.body(), e);
        }
    }

    private HttpRequest.Builder withBody(String path, String method, String contentType, String body) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(uri(path))
                .method(method, HttpRequest.BodyPublishers.ofString(body));
        if (contentType != null) {
            builder.header("Content-Type", contentType);
        }
        return builder;
    }
}
