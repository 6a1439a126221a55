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

/**
 * Requests to one running Quipu over real HTTP, from 127.0.0.1: {@code key} is sent as
 * {@code Authorization: Bearer <key>} when not null, {@code headers} are name, value, name, value…
 */
public abstract class QuipuClient {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    public final ObjectMapper json = new ObjectMapper().findAndRegisterModules();

    /** The running application this client talks to. */
    protected abstract DropwizardTestSupport<QuipuConfiguration> support();

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
            return HTTP.send(builder.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
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
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            socket.getOutputStream().flush();
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
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
                null);
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
