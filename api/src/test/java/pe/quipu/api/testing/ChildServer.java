package pe.quipu.api.testing;

import pe.quipu.core.testing.TestDatabase;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;

/**
 * {@code server} in a JVM of its own ({@link ChildQuipu}), on free ports, answering {@code /v1/status} before
 * {@link #start} returns: for what only a separate process shows (its resident memory, its heap, an
 * OutOfMemoryError). It signs with the test instances' key (their tokens verify there) and schedules nothing that
 * would touch other tests' data on the real clock (no BCRP capture, webhook maintenance and subscription renewals
 * hourly). Close it: the process ends and its log is deleted.
 */
public final class ChildServer implements AutoCloseable {

    private static final Duration START = Duration.ofSeconds(90);

    private final Process process;
    private final Path logFile;
    private final int port;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private ChildServer(Process process, Path logFile, int port) {
        this.process = process;
        this.logFile = logFile;
        this.port = port;
    }

    /**
     * @param jvmOptions the child's own ({@code -Xmx…}, {@code -Ddw.…}), after the common ones
     * @param environment more variables of its environment
     */
    public static ChildServer start(TestDatabase database, List<String> jvmOptions, Map<String, String> environment)
            throws IOException {
        int port = freePort();
        Path log = Files.createTempFile("quipu-child-server-", ".log");
        List<String> options = new ArrayList<>(List.of(
                "-Ddw.auth.developmentSigningKeyFile=" + database.folder().resolve("jwt-signing-key.json"),
                "-Ddw.bcrp.captureEnabled=false",
                "-Ddw.sunatFx.captureEnabled=false",
                "-Ddw.webhooks.maintenanceInterval=1h",
                "-Ddw.subscriptions.applyInterval=1h",
                "-Ddw.logging.level=WARN"));
        options.addAll(jvmOptions);
        ProcessBuilder builder = ChildQuipu.command(database, log, options, "server");
        builder.environment().put("QUIPU_PORT", Integer.toString(port));
        builder.environment().put("QUIPU_ADMIN_PORT", Integer.toString(freePort()));
        builder.environment().putAll(environment);
        ChildServer child = new ChildServer(builder.start(), log, port);
        try {
            await().atMost(START).pollInterval(Duration.ofMillis(250)).until(child::answers);
        } catch (RuntimeException | Error e) {
            child.close();
            throw e;
        }
        return child;
    }

    public Process process() {
        return process;
    }

    public int port() {
        return port;
    }

    /** What the child has written so far. */
    public String log() {
        try {
            return Files.readString(logFile);
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    public HttpResponse<String> get(String path, String bearer) {
        return send(HttpRequest.newBuilder(uri(path)).GET(), bearer);
    }

    public HttpResponse<String> post(String path, String bearer) {
        return send(HttpRequest.newBuilder(uri(path)).POST(HttpRequest.BodyPublishers.noBody()), bearer);
    }

    public URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            try {
                process.destroyForcibly().waitFor(20, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        try {
            Files.deleteIfExists(logFile);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private boolean answers() {
        if (!process.isAlive()) {
            throw new AssertionError("the API ended: " + log());
        }
        try {
            return http.send(HttpRequest.newBuilder(uri("/v1/status")).build(), HttpResponse.BodyHandlers.discarding())
                    .statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private HttpResponse<String> send(HttpRequest.Builder request, String bearer) {
        try {
            return http.send(request.header("Authorization", "Bearer " + bearer).timeout(Duration.ofSeconds(10))
                    .build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static int freePort() throws IOException {
        return FreePorts.free();
    }
}
