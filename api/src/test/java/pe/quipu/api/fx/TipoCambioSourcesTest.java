package pe.quipu.api.fx;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.core.testing.BcrpStub.Answer;
import pe.quipu.core.testing.SunatAnswers;
import pe.quipu.core.testing.SunatStub;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.LocalDate;
import java.time.YearMonth;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static pe.quipu.api.testing.ProblemAssert.assertProblem;

/**
 * {@code GET /v1/tipo-cambio} with {@code fuente} (SBS's series through the BCRP stand-in, SUNAT's publication through
 * the SUNAT stand-in) and with ranges, over real HTTP. The database is shared with every other test class, so each
 * test keeps to its own source and dates; a first lookup of SBS asks BCRP for the year before the date, of SUNAT for
 * the two weeks before it, and records the days without a publication as gaps.
 * Dates used: SBS 2026-09 (the sample), SBS 2013-03; SUNAT 2026-09 (the sample), 2026-10 (recent days), 2024-07,
 * 2025-04/05, 2023-08, 2019-01 to 2020-01 (366 days), 2021-02, 2022-06, 2000-02 and 2000-04 (502, nothing older
 * cached), 1999 (before SUNAT's series); BCRP USD 2016-06 and 2013-03.
 */
class TipoCambioSourcesTest {

    private static final String SBS = "PD04639PD-PD04640PD";
    private static final String BCRP_USD = "PD04637PD-PD04638PD";
    private static final String HTML = "<!DOCTYPE html><html><body>Servicio no disponible</body></html>";

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    private final String key = quipu.accounts.newKey(Scope.TIPO_CAMBIO_READ);

    @BeforeEach
    void clearStubs() {
        quipu.bcrp.clearRequests();
        quipu.sunat.clearRequests();
    }

    @Test
    void sunat_s_rate_of_a_date_with_the_request_sunat_s_page_sends() {
        quipu.sunat.respond(month -> month.equals(YearMonth.of(2026, 9))
                ? Answer.json(sample("listarTipoCambio-2026-09.json")) : Answer.html(HTML));

        HttpResponse<String> response = quipu.get("/v1/tipo-cambio?fuente=sunat&fecha=2026-09-29", key);

        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        assertThat(response.headers().firstValue("Cache-Control")).hasValue("public, max-age=1800, must-revalidate");
        assertThat(response.body()).isEqualTo("{\"fecha\":\"2026-09-29\",\"compra\":3.432,\"venta\":3.440,"
                + "\"fuente\":\"sunat\",\"moneda\":\"USD\",\"capturadoEn\":\"2026-10-07T15:00:00Z\"}");
        // One request for the month: September is 8 (SUNAT counts from 0), Origin and Referer its base URL.
        assertThat(quipu.sunat.requests()).singleElement().satisfies(request -> {
            assertThat(request.method()).isEqualTo("POST");
            assertThat(request.path()).isEqualTo(SunatStub.PATH);
            assertThat(request.anio()).isEqualTo(2026);
            assertThat(request.mes()).isEqualTo(8);
            assertThat(request.origin()).isEqualTo(quipu.sunat.baseUrl());
            assertThat(request.referer()).isEqualTo(quipu.sunat.baseUrl());
            assertThat(request.token()).isNotBlank();
        });
        assertThat(quipu.bcrp.requests()).isEmpty();

        // The weekend before answers Friday's publication with its own fecha, from the database.
        HttpResponse<String> sunday = quipu.get("/v1/tipo-cambio?fuente=sunat&fecha=2026-09-27", key);
        assertThat(sunday.body()).isEqualTo("{\"fecha\":\"2026-09-25\",\"compra\":3.426,\"venta\":3.434,"
                + "\"fuente\":\"sunat\",\"moneda\":\"USD\",\"capturadoEn\":\"2026-10-07T15:00:00Z\"}");
        assertThat(quipu.sunat.requests()).hasSize(1);
    }

    @Test
    void a_sunat_holiday_and_weekend_answer_the_previous_publication_and_are_remembered() {
        // July 2024: Monday 29 is a holiday (Fiestas Patrias), so Friday 26 answers the weekend and the Monday.
        SunatAnswers answers = weekdays(LocalDate.of(2024, 7, 1), LocalDate.of(2024, 7, 31), "3.7");
        answers.day(LocalDate.of(2024, 7, 29), null, null);
        quipu.sunat.respond(answers.responder());

        JsonNode monday = rate("/v1/tipo-cambio?fuente=sunat&fecha=2024-07-29");
        assertThat(monday.path("fecha").asText()).isEqualTo("2024-07-26");
        assertThat(monday.path("fuente").asText()).isEqualTo("sunat");
        assertThat(quipu.sunat.months()).containsExactly(YearMonth.of(2024, 7));

        assertThat(rate("/v1/tipo-cambio?fuente=sunat&fecha=2024-07-28").path("fecha").asText())
                .isEqualTo("2024-07-26");
        assertThat(quipu.sunat.requests()).as("the days of the first window are recorded").hasSize(1);
        // The day after the window is asked for, alone.
        assertThat(rate("/v1/tipo-cambio?fuente=sunat&fecha=2024-07-30").path("fecha").asText())
                .isEqualTo("2024-07-30");
        assertThat(quipu.sunat.months()).containsExactly(YearMonth.of(2024, 7), YearMonth.of(2024, 7));
    }

    @Test
    void a_sunat_day_with_one_side_only_falls_back_to_the_previous_publication() {
        SunatAnswers answers = weekdays(LocalDate.of(2022, 6, 1), LocalDate.of(2022, 6, 30), "3.8");
        answers.day(LocalDate.of(2022, 6, 15), "3.815", null);
        quipu.sunat.respond(answers.responder());

        assertThat(rate("/v1/tipo-cambio?fuente=sunat&fecha=2022-06-15").path("fecha").asText())
                .isEqualTo("2022-06-14");
    }

    @Test
    void sbs_s_rate_comes_from_its_series_at_bcrp_with_the_fecha_rule() {
        quipu.bcrp.respond(path -> path.contains("/" + SBS + "/")
                ? new BcrpAnswers().day(SBS, LocalDate.of(2026, 9, 24), "3.426", "3.434")
                        .day(SBS, LocalDate.of(2026, 9, 25), "3.420", "3.428")
                        .day(SBS, LocalDate.of(2026, 9, 26), "n.d.", "n.d.")
                        .day(SBS, LocalDate.of(2026, 9, 28), "3.432", "3.440").responder().answer(path)
                : Answer.html(HTML));

        HttpResponse<String> sunday = quipu.get("/v1/tipo-cambio?fuente=sbs&fecha=2026-09-27", key);

        assertThat(sunday.statusCode()).as(sunday.body()).isEqualTo(200);
        assertThat(sunday.body()).isEqualTo("{\"fecha\":\"2026-09-25\",\"compra\":3.420,\"venta\":3.428,"
                + "\"fuente\":\"sbs\",\"moneda\":\"USD\",\"capturadoEn\":\"2026-10-07T15:00:00Z\"}");
        // From SBS's own series: the year before the date, or two weeks when an older SBS rate is cached.
        assertThat(quipu.bcrp.requests()).singleElement().satisfies(path -> assertThat(path).isIn(
                "/estadisticas/series/api/" + SBS + "/json/2025-09-23/2026-09-27/esp",
                "/estadisticas/series/api/" + SBS + "/json/2026-09-14/2026-09-27/esp"));
        assertThat(quipu.sunat.requests()).isEmpty();

        assertThat(rate("/v1/tipo-cambio?fuente=sbs&fecha=2026-09-26").path("fecha").asText()).isEqualTo("2026-09-25");
        assertThat(quipu.bcrp.requests()).hasSize(1);
    }

    @Test
    void each_source_keeps_its_own_rate_of_one_day() {
        LocalDate day = LocalDate.of(2013, 3, 12);
        quipu.bcrp.respond(new BcrpAnswers().day(SBS, day, "2.601", "2.609").responder());

        assertThat(rate("/v1/tipo-cambio?fuente=sbs&fecha=2013-03-12").path("compra").decimalValue())
                .isEqualByComparingTo("2.601");
        // BCRP's interbank rate of that day is another series, asked for on its own.
        quipu.bcrp.respond(new BcrpAnswers().day(BCRP_USD, day.minusDays(7), "2.590", "2.595")
                .day(BCRP_USD, day, "2.610", "2.615").responder());
        assertThat(rate("/v1/tipo-cambio?fecha=2013-03-12").path("compra").decimalValue())
                .isEqualByComparingTo("2.610");
        assertThat(rate("/v1/tipo-cambio?fuente=sbs&fecha=2013-03-12").path("compra").decimalValue())
                .isEqualByComparingTo("2.601");
    }

    @Test
    void sunat_down_serves_an_older_cached_publication_that_answers() {
        quipu.sunat.respond(weekdays(LocalDate.of(2025, 4, 1), LocalDate.of(2025, 5, 9), "3.6").responder());
        HttpResponse<String> seeded = quipu.get("/v1/tipo-cambio?fuente=sunat&fecha=2025-05-09", key);
        assertThat(seeded.statusCode()).as(seeded.body()).isEqualTo(200);

        quipu.sunat.respond(month -> Answer.html(HTML));
        quipu.sunat.clearRequests();
        HttpResponse<String> later = quipu.get("/v1/tipo-cambio?fuente=sunat&fecha=2025-05-14", key);

        assertThat(later.statusCode()).as(later.body()).isEqualTo(200);
        assertThat(later.body()).isEqualTo(seeded.body()).contains("\"fecha\":\"2025-05-09\"");
        // May, with its retries.
        assertThat(quipu.sunat.months()).containsExactly(YearMonth.of(2025, 5), YearMonth.of(2025, 5),
                YearMonth.of(2025, 5));
    }

    @Test
    void sunat_down_with_nothing_cached_is_502_and_so_is_an_empty_month_that_should_have_rates() {
        quipu.sunat.respond(month -> Answer.html(HTML));
        assertProblem(quipu.get("/v1/tipo-cambio?fuente=sunat&fecha=2000-02-15", key), 502, "upstream_unavailable");
        assertThat(quipu.sunat.requests()).hasSize(3);

        quipu.sunat.respond(month -> Answer.json("[]"));
        JsonNode problem = assertProblem(quipu.get("/v1/tipo-cambio?fuente=sunat&fecha=2000-02-16", key), 502,
                "upstream_unavailable");
        assertThat(problem.path("detail").asText()).startsWith("SUNAT did not answer");
        // Nothing was recorded of that answer: SUNAT is asked again.
        quipu.sunat.clearRequests();
        assertProblem(quipu.get("/v1/tipo-cambio?fuente=sunat&fecha=2000-02-16", key), 502, "upstream_unavailable");
        assertThat(quipu.sunat.requests()).hasSize(3);
    }

    @Test
    void before_sunat_s_series_is_404_and_an_empty_range_without_asking() {
        quipu.sunat.respond(month -> Answer.html(HTML));

        JsonNode problem = assertProblem(quipu.get("/v1/tipo-cambio?fuente=sunat&fecha=1999-12-31", key), 404,
                "not_found");
        assertThat(problem.path("detail").asText()).isEqualTo(
                "SUNAT's USD series starts on 2000-01-01: no rate on or before 1999-12-31");
        HttpResponse<String> range = quipu.get("/v1/tipo-cambio?fuente=sunat&desde=1999-01-01&hasta=1999-12-31", key);
        assertThat(range.statusCode()).isEqualTo(200);
        assertThat(range.body()).isEqualTo("{\"items\":[],\"moneda\":\"USD\",\"fuente\":\"sunat\"}");
        assertThat(quipu.sunat.requests()).isEmpty();
    }

    @Test
    void a_range_lists_each_publication_oldest_first_then_answers_from_the_database() {
        quipu.sunat.respond(weekdays(LocalDate.of(2023, 8, 1), LocalDate.of(2023, 8, 31), "3.7").responder());

        HttpResponse<String> response = quipu.get("/v1/tipo-cambio?fuente=sunat&desde=2023-08-25&hasta=2023-08-29",
                key);

        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        assertThat(response.headers().firstValue("Cache-Control")).hasValue("public, max-age=1800, must-revalidate");
        assertThat(response.body()).isEqualTo("{\"items\":["
                + "{\"fecha\":\"2023-08-25\",\"compra\":3.725,\"venta\":3.733,\"fuente\":\"sunat\",\"moneda\":\"USD\","
                + "\"capturadoEn\":\"2026-10-07T15:00:00Z\"},"
                + "{\"fecha\":\"2023-08-28\",\"compra\":3.728,\"venta\":3.736,\"fuente\":\"sunat\",\"moneda\":\"USD\","
                + "\"capturadoEn\":\"2026-10-07T15:00:00Z\"},"
                + "{\"fecha\":\"2023-08-29\",\"compra\":3.729,\"venta\":3.737,\"fuente\":\"sunat\",\"moneda\":\"USD\","
                + "\"capturadoEn\":\"2026-10-07T15:00:00Z\"}],\"moneda\":\"USD\",\"fuente\":\"sunat\"}");
        assertThat(quipu.sunat.months()).containsExactly(YearMonth.of(2023, 8));

        quipu.clock.advance(Duration.ofDays(1));
        assertThat(quipu.get("/v1/tipo-cambio?fuente=sunat&desde=2023-08-25&hasta=2023-08-29", key).body())
                .isEqualTo(response.body());
        // A range of one day is the same rule.
        assertThat(quipu.body(quipu.get("/v1/tipo-cambio?fuente=sunat&desde=2023-08-29&hasta=2023-08-29", key))
                .path("items")).singleElement().satisfies(item ->
                assertThat(item.path("fecha").asText()).isEqualTo("2023-08-29"));
        assertThat(quipu.sunat.requests()).hasSize(1);
    }

    @Test
    void a_bcrp_range_asks_bcrp_once_for_the_days_it_lacks() {
        BcrpAnswers answers = new BcrpAnswers();
        for (LocalDate d = LocalDate.of(2016, 6, 1); !d.isAfter(LocalDate.of(2016, 6, 30)); d = d.plusDays(1)) {
            if (d.getDayOfWeek().getValue() <= 5) {
                answers.day(BCRP_USD, d, "3.3" + String.format("%02d", d.getDayOfMonth()), "3.4");
            }
        }
        quipu.bcrp.respond(answers.responder());

        JsonNode june = quipu.body(quipu.get("/v1/tipo-cambio?desde=2016-06-01&hasta=2016-06-30", key));

        assertThat(june.path("items")).hasSize(22);
        assertThat(june.path("items").get(0).path("fecha").asText()).isEqualTo("2016-06-01");
        assertThat(june.path("moneda").asText()).isEqualTo("USD");
        assertThat(june.path("fuente").asText()).isEqualTo("bcrp");
        assertThat(quipu.bcrp.requests()).containsExactly(
                "/estadisticas/series/api/" + BCRP_USD + "/json/2016-06-01/2016-06-30/esp");

        // A range inside it, a single date inside it: all from the database.
        assertThat(quipu.body(quipu.get("/v1/tipo-cambio?desde=2016-06-04&hasta=2016-06-12", key)).path("items"))
                .hasSize(5);
        assertThat(rate("/v1/tipo-cambio?fecha=2016-06-12").path("fecha").asText()).isEqualTo("2016-06-10");
        assertThat(quipu.bcrp.requests()).hasSize(1);
    }

    @Test
    void a_range_of_366_days_is_answered_and_367_is_400() {
        quipu.sunat.respond(weekdays(LocalDate.of(2019, 1, 1), LocalDate.of(2020, 1, 31), "3.3").responder());

        // 2019-01-01 to 2020-01-01: 366 days.
        JsonNode year = quipu.body(quipu.get("/v1/tipo-cambio?fuente=sunat&desde=2019-01-01&hasta=2020-01-01", key));

        assertThat(year.path("items")).hasSize(weekdaysBetween(LocalDate.of(2019, 1, 1), LocalDate.of(2020, 1, 1)));
        assertThat(year.path("items").get(0).path("fecha").asText()).isEqualTo("2019-01-01");
        assertThat(year.path("items").get(year.path("items").size() - 1).path("fecha").asText())
                .isEqualTo("2020-01-01");
        // Each month asked once.
        assertThat(quipu.sunat.months()).hasSize(13).doesNotHaveDuplicates();

        quipu.sunat.clearRequests();
        JsonNode problem = assertProblem(quipu.get("/v1/tipo-cambio?fuente=sunat&desde=2019-01-01&hasta=2020-01-02",
                key), 400, "validation_error");
        assertThat(problem.path("errors").get(0).path("field").asText()).isEqualTo("hasta");
        assertThat(problem.path("detail").asText()).contains("366 days");
        assertThat(quipu.sunat.requests()).isEmpty();
    }

    @Test
    void a_range_with_nothing_published_is_an_empty_list() {
        quipu.sunat.respond(weekdays(LocalDate.of(2021, 2, 1), LocalDate.of(2021, 2, 28), "3.6").responder());

        HttpResponse<String> weekend = quipu.get("/v1/tipo-cambio?fuente=sunat&desde=2021-02-06&hasta=2021-02-07",
                key);

        assertThat(weekend.statusCode()).isEqualTo(200);
        assertThat(weekend.body()).isEqualTo("{\"items\":[],\"moneda\":\"USD\",\"fuente\":\"sunat\"}");
    }

    @Test
    void a_range_costs_one_unit_like_any_lookup() {
        quipu.sunat.respond(weekdays(LocalDate.of(2021, 2, 1), LocalDate.of(2021, 2, 28), "3.6").responder());
        HttpResponse<String> first = quipu.get("/v1/tipo-cambio?fuente=sunat&desde=2021-02-01&hasta=2021-02-28", key);
        HttpResponse<String> second = quipu.get("/v1/tipo-cambio?fuente=sunat&desde=2021-02-01&hasta=2021-02-28", key);

        assertThat(quipu.body(second).path("items")).hasSize(20);
        assertThat(remaining(first) - remaining(second)).isEqualTo(1);
    }

    @Test
    void sunat_down_during_a_range_is_502_for_a_settled_day_it_lacks_but_not_for_today() {
        quipu.sunat.respond(month -> Answer.html(HTML));
        assertProblem(quipu.get("/v1/tipo-cambio?fuente=sunat&desde=2000-04-03&hasta=2000-04-07", key), 502,
                "upstream_unavailable");

        // Wednesday 7 October 2026, 10:00 in Lima: SUNAT has published up to yesterday.
        quipu.sunat.respond(weekdays(LocalDate.of(2026, 10, 1), LocalDate.of(2026, 10, 6), "3.4").responder());
        JsonNode week = quipu.body(quipu.get("/v1/tipo-cambio?fuente=sunat&desde=2026-10-01&hasta=2026-10-07", key));
        assertThat(week.path("items")).hasSize(4);

        // Later SUNAT fails: today is all the range lacks, and it may not be out yet, so the range is served.
        quipu.clock.advance(Duration.ofMinutes(31));
        quipu.sunat.respond(month -> Answer.html(HTML));
        quipu.sunat.clearRequests();
        HttpResponse<String> later = quipu.get("/v1/tipo-cambio?fuente=sunat&desde=2026-10-01&hasta=2026-10-07", key);
        assertThat(later.statusCode()).as(later.body()).isEqualTo(200);
        assertThat(quipu.body(later).path("items")).hasSize(4);
        assertThat(quipu.sunat.requests()).hasSize(3);
    }

    @Test
    void every_400_of_the_sources_and_ranges_without_asking_anyone() {
        quipu.sunat.respond(month -> Answer.html(HTML));
        quipu.bcrp.respond(path -> Answer.html(HTML));

        record Bad(String query, String field) {
        }
        for (Bad bad : List.of(
                new Bad("fuente=xyz", "fuente"), new Bad("fuente=SUNAT", "fuente"), new Bad("fuente=", "fuente"),
                new Bad("fuente=sbs&fuente=sunat", "fuente"),
                new Bad("moneda=EUR&fuente=sunat", "moneda"), new Bad("moneda=EUR&fuente=sbs", "moneda"),
                new Bad("desde=2026-09-10&hasta=2026-09-01", "desde"),
                new Bad("desde=2026-10-01&hasta=2026-10-08", "hasta"),
                new Bad("fecha=2026-09-15&desde=2026-09-01&hasta=2026-09-30", "fecha"),
                new Bad("fecha=2026-09-15&desde=2026-09-01", "fecha"),
                new Bad("desde=2026-09-01", "hasta"), new Bad("hasta=2026-09-30", "desde"),
                new Bad("desde=2025-01-01&hasta=2026-01-02", "hasta"),
                new Bad("desde=2026-9-01&hasta=2026-09-30", "desde"),
                new Bad("desde=2026-09-01&hasta=2026-02-30", "hasta"),
                new Bad("desde=&hasta=2026-09-30", "desde"), new Bad("Desde=2026-09-01&hasta=2026-09-30", "Desde"))) {
            JsonNode problem = assertProblem(quipu.get("/v1/tipo-cambio?" + bad.query(), key), 400, "validation_error");
            assertThat(problem.path("errors").get(0).path("field").asText()).as(bad.query()).isEqualTo(bad.field());
        }
        JsonNode eur = assertProblem(quipu.get("/v1/tipo-cambio?moneda=EUR&fuente=sunat", key), 400,
                "validation_error");
        assertThat(eur.path("detail").asText()).isEqualTo(
                "moneda: must be USD with fuente=sunat: EUR is served from bcrp only");
        assertThat(quipu.sunat.requests()).isEmpty();
        assertThat(quipu.bcrp.requests()).isEmpty();
    }

    private long remaining(HttpResponse<String> response) {
        return Long.parseLong(response.headers().firstValue("X-Quota-Remaining").orElseThrow());
    }

    private JsonNode rate(String pathAndQuery) {
        HttpResponse<String> response = quipu.get(pathAndQuery, key);
        assertThat(response.statusCode()).as(pathAndQuery + ": " + response.body()).isEqualTo(200);
        return quipu.body(response);
    }

    /** Every weekday of {@code [from, to]} published, compra {@code base} and the day (3.601), venta 8 more. */
    private static SunatAnswers weekdays(LocalDate from, LocalDate to, String base) {
        SunatAnswers answers = new SunatAnswers();
        for (LocalDate d = from; !d.isAfter(to); d = d.plusDays(1)) {
            if (d.getDayOfWeek() != DayOfWeek.SATURDAY && d.getDayOfWeek() != DayOfWeek.SUNDAY) {
                int day = d.getDayOfMonth();
                answers.day(d, base + String.format("%02d", day), base + String.format("%02d", day + 8));
            }
        }
        return answers;
    }

    private static int weekdaysBetween(LocalDate from, LocalDate to) {
        List<LocalDate> days = new ArrayList<>();
        for (LocalDate d = from; !d.isAfter(to); d = d.plusDays(1)) {
            if (!Set.of(DayOfWeek.SATURDAY, DayOfWeek.SUNDAY).contains(d.getDayOfWeek())) {
                days.add(d);
            }
        }
        return days.size();
    }

    /** A sample of core's test resources, sunat/ (written from contract §12). */
    static String sample(String name) {
        try (InputStream in = TipoCambioSourcesTest.class.getResourceAsStream("/sunat/" + name)) {
            assertThat(in).as(name).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
