package pe.quipu.api.status;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.core.fx.ExchangeRate;
import pe.quipu.core.fx.ExchangeRateWriter;
import pe.quipu.core.fx.Fuente;
import pe.quipu.core.fx.Moneda;
import pe.quipu.core.fx.RateSeries;

import java.math.BigDecimal;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;

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

    @Test
    void tipo_cambio_names_each_source_and_keeps_bcrp_s_dates_where_they_were() {
        // A SUNAT rate later than any other test's, so that it is the latest whatever else the database holds.
        LocalDate fecha = LocalDate.of(2027, 12, 31);
        RateSeries sunat = RateSeries.of(Fuente.SUNAT, Moneda.USD);
        quipu.database.jdbi().useTransaction(h -> ExchangeRateWriter.save(h, List.of(new ExchangeRate(Moneda.USD,
                fecha, new BigDecimal("3.901"), new BigDecimal("3.909"), "sunat", QuipuExtension.START)), sunat,
                List.of(), QuipuExtension.START));
        // Past the status's 5 s of memory.
        quipu.clock.advance(Duration.ofSeconds(10));

        JsonNode tipoCambio = quipu.body(quipu.get("/v1/status", null)).path("tipoCambio");

        assertThat(tipoCambio.path("sunat").path("USD").path("fecha").asText()).isEqualTo("2027-12-31");
        assertThat(tipoCambio.path("sbs").path("USD").has("fecha")).isTrue();
        assertThat(tipoCambio.path("bcrp").path("USD").has("fecha")).isTrue();
        assertThat(tipoCambio.path("bcrp").path("EUR").has("fecha")).isTrue();
        assertThat(tipoCambio.path("sbs").has("EUR")).isFalse();
        // The first shape's members are BCRP's, beside the sources.
        assertThat(tipoCambio.path("USD")).isEqualTo(tipoCambio.path("bcrp").path("USD"));
        assertThat(tipoCambio.path("EUR")).isEqualTo(tipoCambio.path("bcrp").path("EUR"));
        assertThat(tipoCambio.path("USD").path("fecha").asText()).isNotEqualTo("2027-12-31");
        List<String> members = new ArrayList<>();
        tipoCambio.fieldNames().forEachRemaining(members::add);
        assertThat(members).containsExactly("bcrp", "sbs", "sunat", "USD", "EUR");
    }
}
