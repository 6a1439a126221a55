package pe.quipu.api.fx;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.core.testing.BcrpStub.Answer;

import java.net.http.HttpResponse;
import java.time.LocalDate;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static pe.quipu.api.testing.ProblemAssert.withoutRequestId;

/**
 * Every answer {@code GET /v1/tipo-cambio} gave before it took {@code fuente} and ranges is still given byte for byte:
 * a few of them pinned as they were written before (this class ran unchanged on the code before the sources), bodies
 * and headers, errors included. Dates used: USD 2015-06, EUR 2017-11, USD 1996 (before the series), EUR 1999-08
 * (nothing older is cached), which no other test uses.
 */
class TipoCambioEarlierAnswersTest {

    private static final String USD = "PD04637PD-PD04638PD";
    private static final String EUR = "PD04647PD-PD04648PD";

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    private final String key = quipu.accounts.newKey(Scope.TIPO_CAMBIO_READ);

    @BeforeEach
    void bcrp() {
        quipu.bcrp.respond(new BcrpAnswers()
                .day(USD, LocalDate.of(2015, 6, 4), "3.1511", "3.1577")
                .day(USD, LocalDate.of(2015, 6, 5), "3.1245", "3.12985")
                .day(USD, LocalDate.of(2015, 6, 6), "n.d.", "n.d.")
                .day(EUR, LocalDate.of(2017, 11, 14), "3.7901", "3.9412")
                .day(EUR, LocalDate.of(2017, 11, 15), "3.8", "n.d.")
                .responder());
    }

    @Test
    void rates_as_they_were() {
        String friday = "{\"fecha\":\"2015-06-05\",\"compra\":3.125,\"venta\":3.130,\"fuente\":\"bcrp\","
                + "\"moneda\":\"USD\",\"capturadoEn\":\"2026-10-07T15:00:00Z\"}";
        for (String query : List.of("fecha=2015-06-06", "fecha=2015-06-05", "moneda=USD&fecha=2015-06-07")) {
            HttpResponse<String> response = quipu.get("/v1/tipo-cambio?" + query, key);

            assertThat(response.statusCode()).as(query).isEqualTo(200);
            assertThat(response.body()).as(query).isEqualTo(friday);
            assertThat(response.headers().firstValue("Content-Type")).hasValue("application/json");
            assertThat(response.headers().firstValue("Cache-Control"))
                    .hasValue("public, max-age=1800, must-revalidate");
        }
        assertThat(quipu.get("/v1/tipo-cambio?moneda=EUR&fecha=2017-11-15", key).body()).isEqualTo(
                "{\"fecha\":\"2017-11-14\",\"compra\":3.790,\"venta\":3.941,\"fuente\":\"bcrp\",\"moneda\":\"EUR\","
                        + "\"capturadoEn\":\"2026-10-07T15:00:00Z\"}");
    }

    @Test
    void errors_as_they_were() {
        assertThat(withoutRequestId(quipu.get("/v1/tipo-cambio?moneda=GBP", key).body())).isEqualTo(
                "{\"type\":\"validation_error\",\"title\":\"The request is not valid\",\"status\":400,"
                        + "\"detail\":\"moneda: must be USD or EUR\","
                        + "\"errors\":[{\"field\":\"moneda\",\"message\":\"must be USD or EUR\"}]}");
        assertThat(withoutRequestId(quipu.get("/v1/tipo-cambio?fecha=2015-6-05", key).body())).isEqualTo(
                "{\"type\":\"validation_error\",\"title\":\"The request is not valid\",\"status\":400,"
                        + "\"detail\":\"fecha: must be a date in the form YYYY-MM-DD\","
                        + "\"errors\":[{\"field\":\"fecha\",\"message\":\"must be a date in the form YYYY-MM-DD\"}]}");
        assertThat(withoutRequestId(quipu.get("/v1/tipo-cambio?fecha=2026-10-08", key).body())).isEqualTo(
                "{\"type\":\"validation_error\",\"title\":\"The request is not valid\",\"status\":400,"
                        + "\"detail\":\"fecha: must not be after today in Lima (2026-10-07)\","
                        + "\"errors\":[{\"field\":\"fecha\","
                        + "\"message\":\"must not be after today in Lima (2026-10-07)\"}]}");
        assertThat(withoutRequestId(quipu.get("/v1/tipo-cambio?fecha=1996-05-05", key).body())).isEqualTo(
                "{\"type\":\"not_found\",\"title\":\"Not found\",\"status\":404,"
                        + "\"detail\":\"BCRP's USD series starts on 1997-01-02: no rate on or before 1996-05-05\"}");
        quipu.bcrp.respond(path -> Answer.html("<html>Request Rejected</html>"));
        assertThat(withoutRequestId(quipu.get("/v1/tipo-cambio?moneda=EUR&fecha=1999-08-10", key).body())).isEqualTo(
                "{\"type\":\"upstream_unavailable\",\"title\":\"Upstream source unavailable\",\"status\":502,"
                        + "\"detail\":\"BCRP did not answer and no EUR rate on or before 1999-08-10 is cached\"}");
    }
}
