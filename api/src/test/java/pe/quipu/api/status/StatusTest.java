package pe.quipu.api.status;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.testing.QuipuExtension;

import java.net.http.HttpResponse;

import static org.assertj.core.api.Assertions.assertThat;

class StatusTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    @Test
    void status_is_public_and_reports_every_dataset() {
        HttpResponse<String> response = quipu.get("/v1/status", null);

        assertThat(response.statusCode()).isEqualTo(200);
        JsonNode body = quipu.body(response);
        assertThat(body.path("version").asText()).isNotBlank();
        // config.yml without QUIPU_ENV: development, said where anyone can see it.
        assertThat(body.path("environment").asText()).isEqualTo("development");
        assertThat(body.path("registry").has("rows")).isTrue();
        assertThat(body.path("registry").has("loadedAt")).isTrue();
        assertThat(body.path("ubigeos").path("count").isInt()).isTrue();
        assertThat(body.path("tipoCambio").path("USD").has("fecha")).isTrue();
        assertThat(body.path("tipoCambio").path("EUR").has("fecha")).isTrue();
    }
}
