package pe.quipu.api.operations;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.core.LayoutBase;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.platform.LogFormat;
import pe.quipu.api.testing.ChildQuipu;
import pe.quipu.api.testing.FreePorts;
import pe.quipu.api.testing.QuipuExtension;

import java.io.IOException;
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
import java.util.TimeZone;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** {@code QUIPU_LOG_FORMAT=json} (contract §13): every line of a run is one JSON object with the contract's fields. */
class JsonLogsTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void every_line_of_a_json_run_parses_with_the_application_and_request_fields() throws Exception {
        Path log = Files.createTempFile("quipu-json-", ".log");
        int port = freePort();
        ProcessBuilder builder = ChildQuipu.asDeployed(quipu.database, log, List.of("-Xmx128m",
                "-Ddw.auth.developmentSigningKeyFile=" + quipu.database.folder().resolve("jwt-signing-key.json"),
                "-Ddw.bcrp.captureEnabled=false", "-Ddw.webhooks.maintenanceInterval=1h",
                "-Ddw.subscriptions.applyInterval=1h"), "server");
        Map<String, String> env = builder.environment();
        env.put("QUIPU_LOG_FORMAT", "json");
        env.put("QUIPU_PORT", Integer.toString(port));
        env.put("QUIPU_ADMIN_PORT", Integer.toString(freePort()));
        env.put("QUIPU_SHUTDOWN_DRAIN_DELAY", "0s");
        Process process = builder.start();
        HttpClient http = HttpClient.newHttpClient();
        try {
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(250)).until(() -> {
                assertThat(process.isAlive()).as(Files.readString(log)).isTrue();
                try {
                    return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/readyz")).build(),
                            HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
                } catch (IOException e) {
                    return false;
                }
            });
            HttpResponse<String> refused = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                    + "/v1/ubigeos/150101?access_token=qk_live_secret123&x=1")).header("X-Request-Id", "json-run-1")
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(refused.statusCode()).isEqualTo(400);
            process.destroy();
            assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(process.exitValue()).isZero();

            List<String> lines = Files.readAllLines(log).stream().filter(l -> !l.isBlank()).toList();
            List<JsonNode> objects = new ArrayList<>();
            for (String line : lines) {
                JsonNode node;
                try {
                    node = JSON.readTree(line);
                } catch (IOException e) {
                    throw new AssertionError("not JSON: " + line + "\n--- whole log:\n" + String.join("\n", lines));
                }
                assertThat(node.isObject()).as(line).isTrue();
                objects.add(node);
            }
            List<JsonNode> requests = objects.stream().filter(o -> o.has("method")).toList();
            List<JsonNode> application = objects.stream().filter(o -> o.has("logger")).toList();
            assertThat(application).isNotEmpty().allSatisfy(o -> assertThat(o.has("timestamp") && o.has("level")
                    && o.has("message")).as(o.toString()).isTrue());
            assertThat(application).anySatisfy(o -> assertThat(o.path("message").asText()).contains("SIGTERM"));
            JsonNode request = requests.stream().filter(o -> "json-run-1".equals(o.path("requestId").asText()))
                    .findFirst().orElseThrow(() -> new AssertionError("no request line: " + lines));
            assertThat(request.path("method").asText()).isEqualTo("GET");
            assertThat(request.path("status").asInt()).isEqualTo(400);
            assertThat(request.has("durationMs")).isTrue();
            assertThat(request.path("path").asText()).isEqualTo("/v1/ubigeos/150101?access_token=REDACTED&x=1");
            assertThat(String.join("\n", lines)).doesNotContain("qk_live_secret123");
        } finally {
            process.destroyForcibly();
            Files.deleteIfExists(log);
        }
    }

    @Test
    void an_application_line_written_while_serving_carries_the_request_id_at_the_top_level() throws Exception {
        LoggerContext context = new LoggerContext();
        LayoutBase<ILoggingEvent> layout = LogFormat.eventLayout().build(context, TimeZone.getTimeZone("UTC"));
        layout.start();
        LoggingEvent event = new LoggingEvent("x", context.getLogger("pe.quipu.api.Example"), Level.WARN,
                "something {}", null, new Object[] {"happened"});
        event.setMDCPropertyMap(Map.of("requestId", "req-7", "other", "left out"));
        JsonNode line = JSON.readTree(layout.doLayout(event));
        assertThat(line.path("requestId").asText()).isEqualTo("req-7");
        assertThat(line.path("logger").asText()).isEqualTo("pe.quipu.api.Example");
        assertThat(line.path("level").asText()).isEqualTo("WARN");
        assertThat(line.path("message").asText()).isEqualTo("something happened");
        assertThat(line.path("timestamp").asText()).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z");
        assertThat(line.has("other")).isFalse();
    }

    private static int freePort() throws IOException {
        return FreePorts.free();
    }
}
