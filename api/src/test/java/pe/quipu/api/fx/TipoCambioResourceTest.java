package pe.quipu.api.fx;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.testing.QuipuClient;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.core.fx.ExchangeRate;
import pe.quipu.core.fx.ExchangeRateWriter;
import pe.quipu.core.fx.Fuente;
import pe.quipu.core.fx.Moneda;
import pe.quipu.core.fx.RateSeries;
import pe.quipu.core.testing.BcrpStub.Answer;

import java.math.BigDecimal;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static pe.quipu.api.testing.ProblemAssert.assertProblem;

/**
 * {@code GET /v1/tipo-cambio} over real HTTP, with BCRP played by the stub. The database is shared with every
 * other test class, and the app with this class's other tests, so each test keeps to its own currency and dates,
 * and sets the stub's answer first. A currency's first lookup with nothing cached asks BCRP for the year before
 * the date and records every day without a publication as a gap, so one currency's dates are more than a year
 * apart across tests.
 * Dates used: USD 1998-06 (404), USD 2012-03 (written directly), USD 2000-02 (slow), USD 2001-04 (502), USD 2018-05, USD 2023-06, USD 2025-03,
 * USD 2026-09 (the real sample), EUR 2025-12/2026-01 (the real sample), EUR 2024-08 (latest),
 * EUR 2023-03 (late publication).
 * The 502 tests use the earliest USD dates so that nothing older is cached for them whatever the order.
 */
class TipoCambioResourceTest {

    private static final String USD = "PD04637PD-PD04638PD";
    private static final String EUR = "PD04647PD-PD04648PD";

    /** shared/data/bcrp/usd_interbancario_PD04637PD-PD04638PD.json, verbatim. */
    private static final String USD_SAMPLE = """
            {"config":{"title":"Tipo de cambio","series":[{"name":"Tipo de cambio - TC Interbancario (S/ por US$) - Compra","dec":"3"},{"name":"Tipo de cambio - TC Interbancario (S/ por US$) - Venta","dec":"3"}]},"periods":[{"name":"24.Set.26","values":["3.41285714285714","3.41771428571429"]},{"name":"25.Set.26","values":["3.41642857142857","3.41992857142857"]},{"name":"26.Set.26","values":["n.d.","n.d."]},{"name":"29.Set.26","values":["3.4205","3.42483333333333"]},{"name":"30.Set.26","values":["3.419","n.d."]},{"name":"01.Oct.26","values":["3.42266666666667","3.42583333333333"]}]}""";
    /** shared/data/bcrp/eur_PD04647PD-PD04648PD.json, verbatim. */
    private static final String EUR_SAMPLE = """
            {"config":{"title":"Tipo de cambio","series":[{"name":"Tipo de cambio - TC Euro (S/ por Euro) - Compra","dec":"3"},{"name":"Tipo de cambio - TC Euro (S/ por Euro) - Venta","dec":"3"}]},"periods":[{"name":"30.Dic.25","values":["3.9412","4.1957"]},{"name":"31.Dic.25","values":["n.d.","n.d."]},{"name":"02.Ene.26","values":["3.9507","4.2043"]}]}""";
    private static final String HTML = "<!DOCTYPE html><html><head><title>Request Rejected</title></head>"
            + "<body>The requested URL was rejected.</body></html>";

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    private final String key = quipu.accounts.newKey(Scope.TIPO_CAMBIO_READ);

    @BeforeEach
    void clearStub() {
        quipu.bcrp.clearRequests();
    }

    @Test
    void a_date_not_cached_is_fetched_from_bcrp_then_answered_from_the_database() {
        quipu.bcrp.respond(path -> Answer.json(USD_SAMPLE));

        HttpResponse<String> response = quipu.get("/v1/tipo-cambio?moneda=USD&fecha=2026-09-24", key);

        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        assertThat(response.headers().firstValue("Cache-Control")).hasValue("public, max-age=1800, must-revalidate");
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("application/json"));
        assertThat(response.body()).isEqualTo("{\"fecha\":\"2026-09-24\",\"compra\":3.413,\"venta\":3.418,"
                + "\"fuente\":\"bcrp\",\"moneda\":\"USD\",\"capturadoEn\":\"2026-10-07T15:00:00Z\"}");
        JsonNode body = quipu.body(response);
        assertThat(body.path("compra").isNumber()).isTrue();
        assertThat(body.path("venta").isNumber()).isTrue();
        // One request, for a window ending at the date asked for.
        assertThat(quipu.bcrp.requests()).singleElement()
                .satisfies(path -> assertWindow(path, USD, LocalDate.parse("2026-09-24")));

        quipu.clock.advance(Duration.ofDays(2));
        HttpResponse<String> again = quipu.get("/v1/tipo-cambio?fecha=2026-09-24&moneda=USD", key);

        assertThat(again.statusCode()).isEqualTo(200);
        // Same datum, same capture time: from the database, without asking BCRP again.
        assertThat(again.body()).isEqualTo(response.body());
        assertThat(quipu.bcrp.requests()).hasSize(1);
    }

    /**
     * A fetch window for {@code codes} ending at {@code to}: 14 days back when something older is cached,
     * a year when nothing is (which of the two depends on what other tests cached before).
     */
    private static void assertWindow(String path, String codes, LocalDate to) {
        String prefix = "/estadisticas/series/api/" + codes + "/json/";
        assertThat(path).startsWith(prefix).endsWith("/" + to + "/esp");
        LocalDate from = LocalDate.parse(path.substring(prefix.length(), prefix.length() + 10));
        assertThat(from).isIn(to.minusDays(13), to.minusDays(369));
    }

    @Test
    void a_rate_bcrp_publishes_after_midnight_is_still_found_for_yesterday() {
        LocalDate tuesday = LocalDate.parse("2023-03-07");
        LocalDate wednesday = tuesday.plusDays(1);
        BcrpAnswers bcrp = new BcrpAnswers().day(EUR, tuesday, "4.0101", "4.0202");
        quipu.bcrp.respond(bcrp.responder());
        // Thursday 00:30 in Lima: Wednesday's rate is not out yet.
        quipu.clock.set(Instant.parse("2023-03-09T05:30:00Z"));

        HttpResponse<String> early = quipu.get("/v1/tipo-cambio?moneda=EUR&fecha=2023-03-08", key);
        assertThat(quipu.body(early).path("fecha").asText()).isEqualTo("2023-03-07");

        // Within one capture interval the answer stands without asking BCRP again.
        quipu.clock.advance(Duration.ofMinutes(10));
        int asked = quipu.bcrp.requests().size();
        assertThat(quipu.body(quipu.get("/v1/tipo-cambio?moneda=EUR&fecha=2023-03-08", key))
                .path("fecha").asText()).isEqualTo("2023-03-07");
        assertThat(quipu.bcrp.requests()).hasSize(asked);

        // BCRP publishes Wednesday late; once the interval has passed Quipu asks again and finds it.
        quipu.bcrp.respond(bcrp.day(EUR, wednesday, "4.0303", "4.0404").responder());
        quipu.clock.advance(Duration.ofMinutes(25));
        HttpResponse<String> late = quipu.get("/v1/tipo-cambio?moneda=EUR&fecha=2023-03-08", key);
        assertThat(late.statusCode()).isEqualTo(200);
        assertThat(quipu.body(late).path("fecha").asText()).isEqualTo("2023-03-08");
        assertThat(quipu.body(late).path("compra").decimalValue()).isEqualByComparingTo("4.030");
    }

    @Test
    void a_saturday_answers_the_friday_publication_with_its_own_fecha() {
        quipu.bcrp.respond(new BcrpAnswers()
                .day(USD, LocalDate.of(2025, 3, 6), "3.6512", "3.6588")
                .day(USD, LocalDate.of(2025, 3, 7), "3.6601", "3.6649")
                .day(USD, LocalDate.of(2025, 3, 8), "n.d.", "n.d.")
                // Sunday 9 is not listed at all, as BCRP does.
                .day(USD, LocalDate.of(2025, 3, 10), "3.6702", "3.6755")
                .responder());

        HttpResponse<String> saturday = quipu.get("/v1/tipo-cambio?fecha=2025-03-08", key);

        assertThat(saturday.statusCode()).as(saturday.body()).isEqualTo(200);
        JsonNode body = quipu.body(saturday);
        assertThat(body.path("fecha").asText()).isEqualTo("2025-03-07");
        assertThat(body.path("compra").decimalValue()).isEqualByComparingTo("3.660");
        assertThat(body.path("venta").decimalValue()).isEqualByComparingTo("3.665");
        assertThat(body.path("moneda").asText()).isEqualTo("USD");
        assertThat(saturday.body()).contains("\"compra\":3.660,");

        HttpResponse<String> sunday = quipu.get("/v1/tipo-cambio?fecha=2025-03-09", key);
        assertThat(quipu.body(sunday).path("fecha").asText()).isEqualTo("2025-03-07");
        // Sunday was outside the first window: asked for once, from the day after the cached Friday.
        assertThat(quipu.bcrp.requests()).hasSize(2);
        assertWindow(quipu.bcrp.requests().get(0), USD, LocalDate.parse("2025-03-08"));
        assertThat(quipu.bcrp.requests().get(1))
                .isEqualTo("/estadisticas/series/api/" + USD + "/json/2025-03-08/2025-03-09/esp");

        // Saturday and Sunday are now recorded gaps: the cache proves the answer.
        HttpResponse<String> sundayAgain = quipu.get("/v1/tipo-cambio?fecha=2025-03-09", key);
        assertThat(quipu.body(sundayAgain).path("fecha").asText()).isEqualTo("2025-03-07");
        assertThat(quipu.bcrp.requests()).hasSize(2);
    }

    @Test
    void a_day_with_only_one_side_published_falls_back_to_the_previous_publication() {
        quipu.bcrp.respond(new BcrpAnswers()
                .day(USD, LocalDate.of(2018, 5, 14), "3.6999", "3.7051")
                .day(USD, LocalDate.of(2018, 5, 15), "3.71", "n.d.")
                .responder());

        HttpResponse<String> response = quipu.get("/v1/tipo-cambio?fecha=2018-05-15", key);

        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        assertThat(response.body()).contains("\"fecha\":\"2018-05-14\"", "\"compra\":3.700,", "\"venta\":3.705,");
    }

    @Test
    void eur_uses_the_euro_series() {
        quipu.bcrp.respond(path -> path.contains(EUR) ? Answer.json(EUR_SAMPLE) : Answer.html(HTML));

        HttpResponse<String> response = quipu.get("/v1/tipo-cambio?moneda=EUR&fecha=2026-01-02", key);

        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        assertThat(response.body()).isEqualTo("{\"fecha\":\"2026-01-02\",\"compra\":3.951,\"venta\":4.204,"
                + "\"fuente\":\"bcrp\",\"moneda\":\"EUR\",\"capturadoEn\":\"2026-10-07T15:00:00Z\"}");
        assertThat(quipu.bcrp.requests()).singleElement()
                .satisfies(path -> assertWindow(path, EUR, LocalDate.parse("2026-01-02")));

        // New Year's Day: 31 December was n.d., 1 January not listed; both recorded, so no new request.
        HttpResponse<String> newYear = quipu.get("/v1/tipo-cambio?moneda=EUR&fecha=2026-01-01", key);

        assertThat(newYear.body()).isEqualTo("{\"fecha\":\"2025-12-30\",\"compra\":3.941,\"venta\":4.196,"
                + "\"fuente\":\"bcrp\",\"moneda\":\"EUR\",\"capturadoEn\":\"2026-10-07T15:00:00Z\"}");
        assertThat(quipu.bcrp.requests()).hasSize(1);
    }

    @Test
    void without_fecha_the_latest_publication_is_answered() {
        // Wednesday 2024-08-14, 10:00 in Lima: today's rate is not published yet.
        Instant wednesdayMorning = Instant.parse("2024-08-14T15:00:00Z");
        quipu.clock.set(wednesdayMorning);
        BcrpAnswers answers = new BcrpAnswers()
                .day(EUR, LocalDate.of(2024, 8, 12), "4.0812", "4.1305")
                .day(EUR, LocalDate.of(2024, 8, 13), "4.0903", "4.1411");
        quipu.bcrp.respond(answers.responder());

        HttpResponse<String> morning = quipu.get("/v1/tipo-cambio?moneda=EUR", key);

        assertThat(morning.statusCode()).as(morning.body()).isEqualTo(200);
        assertThat(morning.body()).isEqualTo("{\"fecha\":\"2024-08-13\",\"compra\":4.090,\"venta\":4.141,"
                + "\"fuente\":\"bcrp\",\"moneda\":\"EUR\",\"capturadoEn\":\"2024-08-14T15:00:00Z\"}");
        assertThat(quipu.bcrp.requests()).hasSize(1);
        assertThat(quipu.bcrp.requests().getFirst()).endsWith("/2024-08-14/esp");

        // Within the capture interval BCRP has just been asked about today: answered from the database.
        quipu.clock.advance(Duration.ofMinutes(29));
        assertThat(quipu.body(quipu.get("/v1/tipo-cambio?moneda=EUR", key)).path("fecha").asText())
                .isEqualTo("2024-08-13");
        assertThat(quipu.bcrp.requests()).hasSize(1);

        // Later, today's rate is out; once the interval has passed, BCRP is asked again.
        answers.day(EUR, LocalDate.of(2024, 8, 14), "4.1002", "4.1499");
        quipu.clock.advance(Duration.ofMinutes(2));
        HttpResponse<String> later = quipu.get("/v1/tipo-cambio?moneda=EUR", key);

        assertThat(quipu.body(later).path("fecha").asText()).isEqualTo("2024-08-14");
        assertThat(quipu.body(later).path("capturadoEn").asText()).isEqualTo("2024-08-14T15:31:00Z");
        assertThat(quipu.bcrp.requests()).hasSize(2);
        assertThat(quipu.bcrp.requests().get(1)).endsWith("/2024-08-14/2024-08-14/esp");
    }

    @Test
    void html_from_bcrp_with_nothing_cached_is_502_upstream_unavailable() {
        quipu.bcrp.respond(path -> Answer.html(HTML));

        HttpResponse<String> response = quipu.get("/v1/tipo-cambio?fecha=2001-04-11", key);

        assertProblem(response, 502, "upstream_unavailable");
        // Retried: maxAttempts in config.yml.
        assertThat(quipu.bcrp.requests()).hasSize(3);
    }

    @Test
    void html_from_bcrp_serves_an_older_cached_publication_that_answers() {
        quipu.bcrp.respond(new BcrpAnswers()
                .day(USD, LocalDate.of(2023, 6, 5), "3.6751", "3.6802")
                .day(USD, LocalDate.of(2023, 6, 6), "3.6644", "3.6697")
                .responder());
        HttpResponse<String> seeded = quipu.get("/v1/tipo-cambio?fecha=2023-06-06", key);
        assertThat(seeded.statusCode()).as(seeded.body()).isEqualTo(200);

        quipu.bcrp.respond(path -> Answer.html(HTML));
        quipu.bcrp.clearRequests();
        HttpResponse<String> response = quipu.get("/v1/tipo-cambio?fecha=2023-06-09", key);

        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        assertThat(response.body()).isEqualTo(seeded.body());
        assertThat(response.body()).contains("\"fecha\":\"2023-06-06\"", "\"compra\":3.664,", "\"venta\":3.670,");
        assertThat(quipu.bcrp.requests()).hasSize(3).allSatisfy(
                path -> assertThat(path).endsWith("/json/2023-06-07/2023-06-09/esp"));
    }

    @Test
    void a_slow_bcrp_is_given_up_on_within_five_seconds() {
        // Longer than attemptTimeout (1.4 s) on every attempt.
        quipu.bcrp.respond(path -> new Answer(200, "application/json", BcrpAnswers.json(Map.of()), 3_000));

        long started = System.nanoTime();
        HttpResponse<String> response = quipu.get("/v1/tipo-cambio?fecha=2000-02-10", key);
        Duration took = Duration.ofNanos(System.nanoTime() - started);

        assertProblem(response, 502, "upstream_unavailable");
        assertThat(took).isLessThan(Duration.ofSeconds(5));
        assertThat(quipu.bcrp.requests()).hasSize(3);
    }

    @Test
    void a_date_before_anything_published_is_404() {
        quipu.bcrp.respond(path -> Answer.json(BcrpAnswers.json(Map.of())));

        HttpResponse<String> response = quipu.get("/v1/tipo-cambio?fecha=1998-06-15", key);

        assertProblem(response, 404, "not_found");
        // Nothing cached on or before it: BCRP was asked for the whole year before the date.
        assertThat(quipu.bcrp.requests()).containsExactly(
                "/estadisticas/series/api/" + USD + "/json/1997-06-11/1998-06-15/esp");
    }

    @Test
    void invalid_parameters_are_400_without_asking_bcrp() {
        quipu.bcrp.respond(path -> Answer.html(HTML));

        for (String query : List.of("moneda=GBP", "moneda=usd", "moneda=", "moneda=USD&moneda=EUR",
                "fecha=2026-13-01", "fecha=2026-1-5", "fecha=abc", "fecha=2026-02-30", "fecha=",
                "fecha=2026-10-08", "fecha=2026-09-24&fecha=2026-09-25", "foo=1", "moneda=USD&Fecha=2026-09-24")) {
            HttpResponse<String> response = quipu.get("/v1/tipo-cambio?" + query, key);

            JsonNode problem = assertProblem(response, 400, "validation_error");
            assertThat(problem.path("errors").get(0).path("field").asText()).as(query).isNotBlank();
        }
        assertThat(quipu.bcrp.requests()).isEmpty();
    }

    @Test
    void a_malformed_query_string_is_400_not_repaired() {
        // java.net.URI refuses to build such requests, so they are written by hand.
        for (String query : List.of("moneda=%zz", "moneda=US%", "fecha=2026-09-24%FF")) {
            String answer = quipu.rawGet("/v1/tipo-cambio?" + query, key);
            assertThat(answer).as(query).startsWith("HTTP/1.1 400 ");
            assertThat(answer).as(query).contains("application/problem+json").contains("\"validation_error\"");
        }
        assertThat(quipu.bcrp.requests()).isEmpty();
    }

    @Test
    void the_future_is_judged_by_the_date_in_lima() {
        quipu.bcrp.respond(path -> Answer.html(HTML));
        // 2026-10-08T03:00Z is still 7 October (22:00) in Lima.
        quipu.clock.set(Instant.parse("2026-10-08T03:00:00Z"));

        assertProblem(quipu.get("/v1/tipo-cambio?fecha=2026-10-08", key), 400, "validation_error");
    }

    @Test
    void without_a_key_is_401_and_without_the_scope_is_403() {
        assertProblem(quipu.get("/v1/tipo-cambio", null), 401, "unauthorized");
        assertProblem(quipu.get("/v1/tipo-cambio", quipu.accounts.newKey(Scope.RUC_READ, Scope.UBIGEOS_READ)),
                403, "forbidden_scope");
        assertThat(quipu.bcrp.requests()).isEmpty();
    }

    /**
     * A proven answer may be served from memory, but never once the rates change: whoever writes them (the ETL, a
     * BCRP fetch on another instance, an operator), every instance answers the new value.
     */
    @Test
    void a_corrected_rate_is_answered_by_every_instance_once_it_commits() throws Exception {
        ExchangeRate published = new ExchangeRate(Moneda.USD, LocalDate.parse("2012-03-05"), new BigDecimal("2.681"),
                new BigDecimal("2.683"), ExchangeRate.FUENTE_BCRP, QuipuExtension.START);
        quipu.database.jdbi().useTransaction(h ->
                ExchangeRateWriter.save(h, List.of(published), RateSeries.of(Fuente.BCRP, Moneda.USD), List.of(),
                        QuipuExtension.START));
        List<QuipuClient> instances = List.of(quipu, quipu.peer());
        for (QuipuClient instance : instances) {
            for (int i = 0; i < 2; i++) {
                HttpResponse<String> response = instance.get("/v1/tipo-cambio?fecha=2012-03-05", key);
                assertThat(response.body()).contains("\"compra\":2.681");
            }
        }

        quipu.database.jdbi().useHandle(h ->
                h.execute("update exchange_rates set compra = 2.682 where moneda = 'USD' and fecha = '2012-03-05'"));

        for (QuipuClient instance : instances) {
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(
                    instance.get("/v1/tipo-cambio?fecha=2012-03-05", key).body()).contains("\"compra\":2.682"));
        }
        assertThat(quipu.bcrp.requests()).isEmpty();
    }
}
