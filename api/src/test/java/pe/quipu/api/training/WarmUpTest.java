package pe.quipu.api.training;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.auth.ApiKeyPrincipal;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.testing.PadronFixtures;
import pe.quipu.api.testing.QuipuExtension;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The start-up warm-up: real lookups beside the first clients (or before the port opens), nothing of it left behind. */
class WarmUpTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    @Test
    void a_client_is_answered_during_the_warm_up_which_meters_and_logs_none_of_its_own_requests() throws Exception {
        PadronFixtures.load(quipu.database, QuipuExtension.START);
        String key = quipu.accounts.newKey(Scope.RUC_READ);
        Path requestLog = Files.createTempFile("quipu-warm-up-requests", ".log");
        QuipuExtension.Instance warmed = quipu.startInstance(Map.of("warmUp", "5s",
                "server.requestLog.appenders[0].type", "file",
                "server.requestLog.appenders[0].currentLogFilename", requestLog.toString(),
                "server.requestLog.appenders[0].archive", "false"));
        try {
            // The port serves at once, beside the warm-up, which readiness reports.
            HttpResponse<String> ready = warmed.get("/readyz", null);
            assertThat(ready.statusCode()).isEqualTo(503);
            assertThat(ready.body()).isEqualTo("warming up");
            HttpResponse<String> lookup = warmed.get("/v1/ruc/20100227461", key);
            assertThat(lookup.statusCode()).isEqualTo(200);
            assertThat(lookup.headers().firstValue("RateLimit-Limit")).isPresent();
            String name = WarmUp.class.getName();
            assertThat(gauges(warmed).path(name + ".requests").path("value").asInt())
                    .as("warm-up requests so far").isPositive();

            long deadline = System.nanoTime() + 60_000_000_000L;
            while (ready.statusCode() != 200 && System.nanoTime() < deadline) {
                Thread.sleep(100);
                ready = warmed.get("/readyz", null);
            }
            assertThat(ready.statusCode()).isEqualTo(200);
            assertThat(ready.body()).isEqualTo("ready");

            JsonNode metrics = metrics(warmed);
            JsonNode gauges = metrics.path("gauges");
            int sent = gauges.path(name + ".requests").path("value").asInt();
            assertThat(sent).as("warm-up requests").isGreaterThan(10);
            // They went through the server's own handlers and the application connector, as a client's do.
            assertThat(metrics.path("timers").path(WarmUp.SERVED_REQUESTS).path("count").asInt())
                    .as("requests the server's handlers timed").isGreaterThanOrEqualTo(sent);
            assertThat(metrics.path("timers").path("pe.quipu.api.ruc.RucResource.lookup").path("count").asInt())
                    .as("RUC lookups").isGreaterThan(1);
            assertThat(gauges.path(name + ".failures").path("value").asInt()).as("failed").isZero();
            assertThat(gauges.path(name + ".millis").path("value").asLong()).isBetween(4_000L, 20_000L);

            // Its key was in memory only: nothing counted for it, while the client's lookup is counted as usual.
            try (Connection c = quipu.database.connection();
                 PreparedStatement q = c.prepareStatement("select count(*) from usage_counters where account_id = ?")) {
                q.setObject(1, ApiKeyPrincipal.WARM_UP_ACCOUNT);
                try (ResultSet rs = q.executeQuery()) {
                    rs.next();
                    assertThat(rs.getLong(1)).isZero();
                }
            }
            assertThat(warmed.get("/v1/ruc/20100227461", key).statusCode()).isEqualTo(200);
            // The request log has the client's lines, before and after the warm-up, and none of the warm-up's.
            List<String> lines = List.of();
            deadline = System.nanoTime() + 10_000_000_000L;
            while (lines.stream().filter(l -> l.contains("/v1/ruc/20100227461")).count() < 2
                    && System.nanoTime() < deadline) {
                Thread.sleep(50);
                lines = Files.readAllLines(requestLog);
            }
            assertThat(lines).filteredOn(l -> l.contains("GET /v1/ruc/20100227461")).hasSize(2);
            assertThat(lines).filteredOn(l -> l.contains("/readyz")).isNotEmpty();
            assertThat(lines).as("the warm-up's requests").noneMatch(l -> l.contains("/v1/ubigeos")
                    || l.contains("/v1/status"));
        } finally {
            warmed.stop();
            Files.deleteIfExists(requestLog);
        }
    }

    @Test
    void with_the_port_held_the_warm_up_ends_before_the_first_client_is_answered() throws Exception {
        PadronFixtures.load(quipu.database, QuipuExtension.START);
        // A configured port, as an operator gives one: held, the port is bound when the warm-up ends (the restart that
        // binds it once lost its channel to Jetty's departing acceptor: ConnectorRestartTest).
        int port = pe.quipu.api.testing.FreePorts.free();
        QuipuExtension.Instance warmed = quipu.startInstance(Map.of("warmUp", "6s", "warmUpHoldsPort", "true",
                "server.applicationConnectors[0].port", Integer.toString(port)));
        try {
            // The start returned once the port was open, the warm-up over: ready at once.
            HttpResponse<String> ready;
            try {
                ready = warmed.get("/readyz", null);
            } catch (RuntimeException e) {
                throw new AssertionError("the first request to " + warmed.uri("/") + " failed; listening then:\n"
                        + new String(new ProcessBuilder("ss", "-ltnp").redirectErrorStream(true).start()
                        .getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8), e);
            }
            assertThat(ready.statusCode()).isEqualTo(200);
            JsonNode gauges = gauges(warmed);
            String name = WarmUp.class.getName();
            assertThat(gauges.path(name + ".requests").path("value").asInt()).isGreaterThan(10);
            assertThat(gauges.path(name + ".failures").path("value").asInt()).isZero();
            assertThat(gauges.path(name + ".millis").path("value").asLong()).isBetween(6_000L, 15_000L);
        } finally {
            warmed.stop();
        }
    }

    private static JsonNode metrics(QuipuExtension.Instance instance) throws Exception {
        return instance.json.readTree(HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(instance.adminUri("/metrics")).build(),
                HttpResponse.BodyHandlers.ofString()).body());
    }

    private static JsonNode gauges(QuipuExtension.Instance instance) throws Exception {
        return metrics(instance).path("gauges");
    }

    @Test
    void it_is_off_in_the_tests_instances_and_costs_them_nothing() throws Exception {
        JsonNode gauges = quipu.json.readTree(HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(quipu.adminUri("/metrics")).build(),
                HttpResponse.BodyHandlers.ofString()).body()).path("gauges");
        assertThat(gauges.path(WarmUp.class.getName() + ".requests").path("value").asInt()).isZero();
    }
}
