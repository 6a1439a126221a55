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
import java.sql.ResultSet;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The start-up warm-up: real lookups before the connectors open, and nothing of it left behind. */
class WarmUpTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    @Test
    void an_instance_answers_lookups_through_its_own_server_before_it_opens_and_meters_none_of_them()
            throws Exception {
        PadronFixtures.load(quipu.database, QuipuExtension.START);
        String key = quipu.accounts.newKey(Scope.RUC_READ);
        QuipuExtension.Instance warmed = quipu.startInstance(Map.of("warmUp", "3s"));
        try {
            JsonNode metrics = warmed.json.readTree(HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(warmed.adminUri("/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString()).body());
            JsonNode gauges = metrics.path("gauges");
            String name = WarmUp.class.getName();
            int sent = gauges.path(name + ".requests").path("value").asInt();
            assertThat(sent).as("warm-up requests").isGreaterThan(10);
            // They went through the server's own handlers and the application connector, as a client's do.
            assertThat(metrics.path("timers").path("io.dropwizard.jetty.MutableServletContextHandler.requests")
                    .path("count").asInt()).as("requests the server's handlers timed").isGreaterThanOrEqualTo(sent);
            assertThat(metrics.path("timers").path("pe.quipu.api.ruc.RucResource.lookup").path("count").asInt())
                    .as("RUC lookups").isPositive();
            assertThat(gauges.path(name + ".failures").path("value").asInt()).as("failed").isZero();
            assertThat(gauges.path(name + ".millis").path("value").asLong()).isBetween(3000L, 10_000L);

            // Its key was in memory only: nothing counted for it, and the instance meters real keys as usual.
            HttpResponse<String> lookup;
            try {
                lookup = warmed.get("/v1/ruc/20100227461", key);
            } catch (RuntimeException e) {
                // Refused on the port the instance reports: which sockets listened then says whether it moved.
                throw new AssertionError("the lookup at " + warmed.uri("/") + " failed; listening then:\n"
                        + new String(new ProcessBuilder("ss", "-ltnp").redirectErrorStream(true).start()
                        .getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8), e);
            }
            assertThat(lookup.statusCode()).isEqualTo(200);
            assertThat(lookup.headers().firstValue("RateLimit-Limit")).isPresent();
            try (Connection c = quipu.database.connection();
                 PreparedStatement q = c.prepareStatement("select count(*) from usage_counters where account_id = ?")) {
                q.setObject(1, ApiKeyPrincipal.WARM_UP_ACCOUNT);
                try (ResultSet rs = q.executeQuery()) {
                    rs.next();
                    assertThat(rs.getLong(1)).isZero();
                }
            }
        } finally {
            warmed.stop();
        }
    }

    @Test
    void it_is_off_in_the_tests_instances_and_costs_them_nothing() throws Exception {
        JsonNode gauges = quipu.json.readTree(HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(quipu.adminUri("/metrics")).build(),
                HttpResponse.BodyHandlers.ofString()).body()).path("gauges");
        assertThat(gauges.path(WarmUp.class.getName() + ".requests").path("value").asInt()).isZero();
    }
}
