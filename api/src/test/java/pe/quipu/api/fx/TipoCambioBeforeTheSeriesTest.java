package pe.quipu.api.fx;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.core.fx.Moneda;
import pe.quipu.core.testing.BcrpStub.Answer;

import java.time.Duration;
import java.time.LocalDate;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static pe.quipu.api.testing.ProblemAssert.assertProblem;

/**
 * Dates far in the past cost BCRP nothing, or one request: before a series' first day
 * ({@code bcrp.seriesStart}) the answer is 404 at once, and a date BCRP confirmed has nothing on or before it is
 * remembered for {@code bcrp.emptyAnswerMemory}. The database is shared with other test classes: this class keeps to
 * EUR 1999 and USD before 1997, which no other test uses.
 */
class TipoCambioBeforeTheSeriesTest {

    private static final String EUR = "PD04647PD-PD04648PD";
    private static final String HTML = "<!DOCTYPE html><html><body>Request Rejected</body></html>";

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    private final String key = quipu.accounts.newKey(Scope.TIPO_CAMBIO_READ);

    @BeforeEach
    void clearStub() {
        quipu.bcrp.clearRequests();
    }

    @Test
    void the_series_first_days_default_to_bcrp_s_own() {
        assertThat(quipu.configuration().getBcrp().seriesStart(Moneda.USD)).hasValue(LocalDate.of(1997, 1, 2));
        assertThat(quipu.configuration().getBcrp().seriesStart(Moneda.EUR)).hasValue(LocalDate.of(1999, 1, 4));
    }

    @Test
    void a_date_before_the_series_first_day_is_404_without_asking_bcrp() {
        // Were BCRP asked, its anti-bot page would make this a 502.
        quipu.bcrp.respond(path -> Answer.html(HTML));

        for (String query : new String[] {"fecha=1997-01-01", "moneda=USD&fecha=1990-05-05", "fecha=0001-01-01",
                "moneda=EUR&fecha=1999-01-03", "moneda=EUR&fecha=1970-01-01"}) {
            assertProblem(quipu.get("/v1/tipo-cambio?" + query, key), 404, "not_found");
        }
        assertThat(quipu.bcrp.requests()).isEmpty();
    }

    @Test
    void a_loop_over_dates_bcrp_confirmed_empty_costs_bcrp_one_request_until_the_memory_expires() {
        quipu.bcrp.respond(path -> Answer.json(BcrpAnswers.json(Map.of())));

        assertProblem(quipu.get("/v1/tipo-cambio?moneda=EUR&fecha=1999-06-15", key), 404, "not_found");
        // One request, reaching back no further than the series' first day.
        assertThat(quipu.bcrp.requests()).containsExactly(
                "/estadisticas/series/api/" + EUR + "/json/1999-01-04/1999-06-15/esp");

        for (int i = 0; i < 50; i++) {
            assertProblem(quipu.get("/v1/tipo-cambio?moneda=EUR&fecha=1999-06-15", key), 404, "not_found");
            // Earlier dates are known empty too.
            assertProblem(quipu.get("/v1/tipo-cambio?moneda=EUR&fecha=1999-0" + (1 + i % 5) + "-2" + (i % 9), key),
                    404, "not_found");
        }
        assertThat(quipu.bcrp.requests()).hasSize(1);

        // A while later (24 h by default), BCRP is asked again: it may have published its history since.
        quipu.clock.advance(Duration.ofHours(24).plusSeconds(1));
        assertProblem(quipu.get("/v1/tipo-cambio?moneda=EUR&fecha=1999-06-15", key), 404, "not_found");
        assertThat(quipu.bcrp.requests()).hasSize(2);
    }
}
