package pe.quipu.api.status;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.testing.QuipuExtension;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import static org.assertj.core.api.Assertions.assertThat;

/** The admin connector: health checks and metrics. */
class OperationsTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    @Test
    void health_checks_report_the_database_and_data_freshness() {
        HttpResponse<String> response = quipu.send(HttpRequest.newBuilder(quipu.adminUri("/healthcheck")), null);
        JsonNode checks = quipu.body(response);
        assertThat(checks.path("database").path("healthy").asBoolean()).isTrue();
        assertThat(checks.has("data-freshness")).isTrue();
        assertThat(checks.path("data-freshness").path("message").asText()).contains("ubigeos=1891");
    }

    @Test
    void metrics_time_each_endpoint() {
        quipu.get("/v1/ubigeos/150101", quipu.accounts.newKey(Scope.UBIGEOS_READ));
        HttpResponse<String> response = quipu.send(HttpRequest.newBuilder(quipu.adminUri("/metrics")), null);
        JsonNode timers = quipu.body(response).path("timers");
        assertThat(timers.path("pe.quipu.api.ubigeo.UbigeoResource.lookup").path("count").asLong()).isPositive();
    }
}
