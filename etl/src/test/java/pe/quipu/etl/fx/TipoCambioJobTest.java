package pe.quipu.etl.fx;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.fx.BcrpAnswers;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.core.testing.BcrpStub.Answer;
import pe.quipu.core.testing.SunatAnswers;
import pe.quipu.etl.testing.EtlRun;
import pe.quipu.etl.testing.EtlRunner;
import pe.quipu.etl.testing.ProgressLog;

import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDate;
import java.time.YearMonth;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code tipo-cambio} job against the BCRP and SUNAT stand-ins, then the API answering from what it stored. The
 * app, database and stubs are shared with every test class: this class keeps to USD and EUR in 2010, USD in 2012,
 * both in 2014-03, SUNAT in 2011-01 to 03, every series in 2015-09, SBS and SUNAT in 2016-11, far from the other
 * tests' dates (see TipoCambioResourceTest, TipoCambioSourcesTest).
 */
class TipoCambioJobTest {

    private static final String USD = "PD04637PD-PD04638PD";
    private static final String EUR = "PD04647PD-PD04648PD";
    private static final String SBS = "PD04639PD-PD04640PD";

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();
    private static final EtlRunner etl = new EtlRunner(quipu.clock, quipu.bcrp, quipu.sunat, quipu.database);

    private final String key = quipu.accounts.newKey(Scope.TIPO_CAMBIO_READ);

    @BeforeEach
    void clearStub() {
        quipu.bcrp.clearRequests();
        quipu.sunat.clearRequests();
    }

    @AfterEach
    void restoreClock() {
        quipu.clock.set(QuipuExtension.START);
    }

    @Test
    void a_200_day_backfill_asks_bcrp_in_chunks_and_the_api_then_answers_from_the_database() throws Exception {
        LocalDate from = LocalDate.parse("2010-01-01");
        LocalDate to = from.plusDays(199);
        BcrpAnswers answers = new BcrpAnswers();
        int publications = 0;
        for (LocalDate d = from; !d.isAfter(to); d = d.plusDays(1)) {
            if (d.getDayOfWeek() == DayOfWeek.SATURDAY || d.getDayOfWeek() == DayOfWeek.SUNDAY) {
                continue;
            }
            String day = String.valueOf(d.getDayOfYear() % 100);
            answers.day(USD, d, "2.8" + pad(day), "2.9" + pad(day));
            answers.day(EUR, d, "3.8" + pad(day), "3.9" + pad(day));
            publications += 2;
        }
        // n.d. on one side: no publication that day for that currency.
        answers.day(USD, LocalDate.parse("2010-03-10"), "2.869", "n.d.");
        answers.day(EUR, LocalDate.parse("2010-05-12"), "n.d.", "3.932");
        publications -= 2;
        quipu.bcrp.respond(answers.responder());

        EtlRun run;
        try (ProgressLog progress = new ProgressLog()) {
            run = etl.run("tipo-cambio", "--fuente", "bcrp", "--from", from.toString(), "--to", to.toString());
            assertThat(progress.phaseEnds()).hasSize(1);
            assertThat(progress.phaseEnds().getFirst())
                    .matches("tipo-cambio: download done in \\d+\\.\\d s, 6 of 6 requests to bcrp");
        }

        assertThat(run.exitCode()).as(run.stdout() + run.stderr()).isZero();
        assertThat(run.stdout()).startsWith("tipo-cambio succeeded: read " + publications + ", written "
                + publications + ", rejected 0, in ");
        assertThat(quipu.bcrp.requests()).containsExactly(
                path(USD, "2010-01-01", "2010-03-31"), path(USD, "2010-04-01", "2010-06-29"),
                path(USD, "2010-06-30", "2010-07-19"),
                path(EUR, "2010-01-01", "2010-03-31"), path(EUR, "2010-04-01", "2010-06-29"),
                path(EUR, "2010-06-30", "2010-07-19"));
        List<JsonNode> events = etl.events(run.runId());
        assertThat(events).extracting(e -> e.path("type").asText())
                .containsExactly("etl.run.started", "etl.run.succeeded");
        assertThat(events.get(1).path("data").path("rowsRead").asLong()).isEqualTo(publications);
        assertThat(events.get(1).path("data").path("rowsWritten").asLong()).isEqualTo(publications);
        assertThat(events.get(1).path("data").path("rowsRejected").asLong()).isZero();

        quipu.bcrp.clearRequests();
        JsonNode usd = rate("USD", "2010-03-10");
        assertThat(usd.path("fecha").asText()).isEqualTo("2010-03-09");
        assertThat(usd.path("compra").decimalValue()).isEqualByComparingTo("2.868");
        assertThat(usd.path("capturadoEn").asText()).isEqualTo(QuipuExtension.START.toString());
        assertThat(rate("USD", "2010-03-13").path("fecha").asText()).isEqualTo("2010-03-12");
        assertThat(rate("EUR", "2010-05-12").path("fecha").asText()).isEqualTo("2010-05-11");
        assertThat(rate("EUR", "2010-07-19").path("venta").decimalValue()).isEqualByComparingTo("3.900");
        assertThat(quipu.bcrp.requests()).as("answered from the database").isEmpty();

        // A second run stores nothing new and keeps the capture times.
        quipu.clock.advance(java.time.Duration.ofHours(1));
        EtlRun again = etl.run("tipo-cambio", "--fuente", "bcrp", "--from", from.toString(), "--to",
                to.toString());
        assertThat(again.exitCode()).as(again.stdout() + again.stderr()).isZero();
        assertThat(again.stdout()).startsWith("tipo-cambio succeeded: read " + publications + ", written 0, rejected 0");
        assertThat(rate("USD", "2010-03-10").path("capturadoEn").asText()).isEqualTo(QuipuExtension.START.toString());
    }

    @Test
    void bcrp_answering_html_fails_the_run_and_keeps_the_chunks_already_stored() throws Exception {
        BcrpAnswers answers = new BcrpAnswers()
                .day(USD, LocalDate.parse("2012-02-14"), "2.701", "2.702")
                .day(USD, LocalDate.parse("2012-02-15"), "2.703", "2.704");
        var json = answers.responder();
        quipu.bcrp.respond(path -> path.contains("/2012-01-02/")
                ? json.answer(path)
                : Answer.html("<!DOCTYPE html><html><body>The requested URL was rejected.</body></html>"));

        EtlRun run = etl.run("tipo-cambio", "--fuente", "bcrp", "--from", "2012-01-02", "--to", "2012-06-30");

        assertThat(run.exitCode()).as(run.stdout() + run.stderr()).isEqualTo(1);
        assertThat(run.stdout()).startsWith("tipo-cambio failed: read 2, written 2, rejected 0");
        // The first chunk, then the second one three times (its retries), and nothing after it.
        assertThat(quipu.bcrp.requests()).containsExactly(path(USD, "2012-01-02", "2012-03-31"),
                path(USD, "2012-04-01", "2012-06-29"), path(USD, "2012-04-01", "2012-06-29"),
                path(USD, "2012-04-01", "2012-06-29"));
        List<JsonNode> events = etl.events(run.runId());
        assertThat(events).extracting(e -> e.path("type").asText())
                .containsExactly("etl.run.started", "etl.run.failed");
        assertThat(events.get(1).path("data").path("error").asText()).startsWith("bcrp: BCRP did not answer");

        quipu.bcrp.clearRequests();
        assertThat(rate("USD", "2012-02-16").path("fecha").asText()).isEqualTo("2012-02-15");
        assertThat(quipu.bcrp.requests()).isEmpty();
    }

    @Test
    void by_default_the_last_10_days_are_asked_for_and_only_settled_days_become_gaps() throws Exception {
        quipu.clock.set(Instant.parse("2014-03-12T15:00:00Z"));
        BcrpAnswers answers = new BcrpAnswers();
        for (String d : List.of("2014-03-03", "2014-03-04", "2014-03-05", "2014-03-06", "2014-03-07", "2014-03-10")) {
            answers.day(USD, LocalDate.parse(d), "2.801", "2.802").day(EUR, LocalDate.parse(d), "3.851", "3.852");
        }
        quipu.bcrp.respond(answers.responder());

        EtlRun run = etl.run("tipo-cambio", "--fuente", "bcrp");

        assertThat(run.exitCode()).as(run.stdout() + run.stderr()).isZero();
        assertThat(run.stdout()).startsWith("tipo-cambio succeeded: read 12, written 12, rejected 0");
        assertThat(quipu.bcrp.requests()).containsExactly(path(USD, "2014-03-03", "2014-03-12"),
                path(EUR, "2014-03-03", "2014-03-12"));
        assertThat(quipu.sunat.requests()).isEmpty();
        // Yesterday and today in Lima may still be published: no gap for them.
        assertThat(gaps("USD", "2014-03-01", "2014-03-31")).containsExactly("2014-03-08", "2014-03-09");
        assertThat(gaps("EUR", "2014-03-01", "2014-03-31")).containsExactly("2014-03-08", "2014-03-09");
    }

    @Test
    void a_range_that_ends_before_it_starts_is_a_usage_error() {
        quipu.clock.set(Instant.parse("2014-03-12T15:00:00Z"));
        for (String[] args : List.of(new String[] {"tipo-cambio", "--from", "2010-02-01", "--to", "2010-01-31"},
                new String[] {"tipo-cambio", "--from", "2014-03-13"},
                new String[] {"tipo-cambio", "--from", "2010-02-30"},
                new String[] {"tipo-cambio", "--fuente", "SUNAT"}, new String[] {"tipo-cambio", "--fuente", "bcv"},
                new String[] {"tipo-cambio", "--fuente", "all", "--fuente", "bcrp"})) {
            EtlRun run = etl.run(args);
            assertThat(run.exitCode()).as(String.join(" ", args)).isEqualTo(2);
            assertThat(run.stdout()).isEmpty();
            assertThat(run.stderr()).contains("usage:");
        }
        assertThat(quipu.bcrp.requests()).isEmpty();
        assertThat(quipu.sunat.requests()).isEmpty();
    }

    @Test
    void sunat_is_asked_a_month_per_chunk_and_the_api_then_answers_from_the_database() throws Exception {
        SunatAnswers answers = new SunatAnswers();
        for (LocalDate d = LocalDate.parse("2011-01-01"); d.getMonthValue() <= 3; d = d.plusDays(1)) {
            if (d.getDayOfWeek().getValue() <= 5) {
                String day = pad(String.valueOf(d.getDayOfMonth()));
                answers.day(d, "2.7" + day, "2.8" + day);
            }
        }
        quipu.sunat.respond(answers.responder());

        EtlRun run = etl.run("tipo-cambio", "--fuente", "sunat", "--from", "2011-01-15", "--to", "2011-03-10");

        assertThat(run.exitCode()).as(run.stdout() + run.stderr()).isZero();
        int inRange = weekdays("2011-01-15", "2011-03-10");
        assertThat(run.stdout()).startsWith("tipo-cambio succeeded: read " + inRange + ", written " + inRange + ",");
        // January is 0.
        assertThat(quipu.sunat.requests()).extracting(r -> r.anio() + "/" + r.mes())
                .containsExactly("2011/0", "2011/1", "2011/2");
        assertThat(quipu.bcrp.requests()).isEmpty();
        assertThat(steps(run.runId())).containsExactly("tipo-cambio-sunat COMPLETED " + inRange + " " + inRange);

        quipu.sunat.clearRequests();
        HttpResponse<String> saturday = quipu.get("/v1/tipo-cambio?fuente=sunat&fecha=2011-02-05", key);
        assertThat(quipu.body(saturday).path("fecha").asText()).isEqualTo("2011-02-04");
        assertThat(quipu.body(saturday).path("fuente").asText()).isEqualTo("sunat");
        assertThat(quipu.sunat.requests()).as("answered from the database").isEmpty();
    }

    @Test
    void by_default_every_source_runs_as_a_step_of_its_own() throws Exception {
        quipu.clock.set(Instant.parse("2015-09-16T15:00:00Z"));
        BcrpAnswers bcrp = new BcrpAnswers();
        SunatAnswers sunat = new SunatAnswers();
        for (String d : List.of("2015-09-07", "2015-09-08", "2015-09-09", "2015-09-10", "2015-09-11",
                "2015-09-14", "2015-09-15")) {
            LocalDate day = LocalDate.parse(d);
            bcrp.day(USD, day, "3.201", "3.202").day(EUR, day, "3.601", "3.602").day(SBS, day, "3.211", "3.212");
            sunat.day(day, "3.221", "3.222");
        }
        // SUNAT answers the whole month, its first week included.
        for (String d : List.of("2015-09-01", "2015-09-02", "2015-09-03", "2015-09-04")) {
            sunat.day(LocalDate.parse(d), "3.191", "3.192");
        }
        quipu.bcrp.respond(bcrp.responder());
        quipu.sunat.respond(sunat.responder());

        EtlRun run = etl.run("tipo-cambio");

        assertThat(run.exitCode()).as(run.stdout() + run.stderr()).isZero();
        // The last 10 days (7 to 16 September): 7 publications of each of the four series.
        assertThat(run.stdout()).startsWith("tipo-cambio succeeded: read 28, written 28, rejected 0");
        assertThat(steps(run.runId())).containsExactly("tipo-cambio-bcrp COMPLETED 14 14",
                "tipo-cambio-sbs COMPLETED 7 7", "tipo-cambio-sunat COMPLETED 7 7");
        assertThat(quipu.bcrp.requests()).containsExactly(path(USD, "2015-09-07", "2015-09-16"),
                path(EUR, "2015-09-07", "2015-09-16"), path(SBS, "2015-09-07", "2015-09-16"));
        assertThat(quipu.sunat.months()).containsExactly(YearMonth.of(2015, 9));
        assertThat(gaps("sunat", "USD", "2015-09-01", "2015-09-30")).containsExactly("2015-09-12", "2015-09-13");
        assertThat(gaps("sbs", "USD", "2015-09-01", "2015-09-30")).containsExactly("2015-09-12", "2015-09-13");
    }

    @Test
    void a_source_that_fails_fails_the_run_after_the_others_ran() throws Exception {
        quipu.clock.set(Instant.parse("2016-11-16T15:00:00Z"));
        BcrpAnswers bcrp = new BcrpAnswers();
        for (String d : List.of("2016-11-07", "2016-11-08", "2016-11-09", "2016-11-10", "2016-11-11",
                "2016-11-14", "2016-11-15")) {
            bcrp.day(SBS, LocalDate.parse(d), "3.401", "3.402");
        }
        quipu.bcrp.respond(bcrp.responder());
        quipu.sunat.respond(month -> Answer.html("<html><body>Servicio no disponible</body></html>"));

        EtlRun run = etl.run("tipo-cambio", "--fuente", "sbs");
        assertThat(run.exitCode()).as(run.stdout() + run.stderr()).isZero();

        EtlRun all = etl.run("tipo-cambio", "--from", "2016-11-07", "--to", "2016-11-15");

        assertThat(all.exitCode()).as(all.stdout() + all.stderr()).isEqualTo(1);
        assertThat(all.stdout()).startsWith("tipo-cambio failed: read 7, written 0, rejected 0, in ")
                .contains(": sunat: SUNAT did not answer USD 2016-11");
        assertThat(steps(all.runId())).containsExactly("tipo-cambio-bcrp COMPLETED 0 0",
                "tipo-cambio-sbs COMPLETED 7 0", "tipo-cambio-sunat FAILED 0 0");
        List<JsonNode> events = etl.events(all.runId());
        assertThat(events).extracting(e -> e.path("type").asText())
                .containsExactly("etl.run.started", "etl.run.failed");
        assertThat(events.get(1).path("data").path("error").asText()).startsWith("sunat: SUNAT did not answer");
        assertThat(events.get(1).path("data").path("rowsRead").asLong()).isEqualTo(7);
    }

    private List<String> steps(long runId) {
        return quipu.database.texts("""
                select step_name || ' ' || status || ' ' || read_count || ' ' || write_count
                  from batch_step_execution where job_execution_id = ? order by step_execution_id""", runId);
    }

    private static int weekdays(String from, String to) {
        int days = 0;
        for (LocalDate d = LocalDate.parse(from); !d.isAfter(LocalDate.parse(to)); d = d.plusDays(1)) {
            days += d.getDayOfWeek().getValue() <= 5 ? 1 : 0;
        }
        return days;
    }

    private static String pad(String day) {
        return day.length() == 1 ? "0" + day : day;
    }

    private JsonNode rate(String moneda, String fecha) {
        HttpResponse<String> response = quipu.get("/v1/tipo-cambio?moneda=" + moneda + "&fecha=" + fecha, key);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return quipu.body(response);
    }

    private static String path(String codes, String from, String to) {
        return "/estadisticas/series/api/" + codes + "/json/" + from + "/" + to + "/esp";
    }

    private List<String> gaps(String moneda, String from, String to) throws Exception {
        return gaps("bcrp", moneda, from, to);
    }

    private List<String> gaps(String fuente, String moneda, String from, String to) throws Exception {
        List<String> days = new ArrayList<>();
        try (Connection c = quipu.database.connection(); PreparedStatement q = c.prepareStatement("""
                select fecha from exchange_rate_gaps
                 where fuente = ? and moneda = ? and fecha between ?::date and ?::date order by fecha""")) {
            q.setString(1, fuente);
            q.setString(2, moneda);
            q.setString(3, from);
            q.setString(4, to);
            try (ResultSet rs = q.executeQuery()) {
                while (rs.next()) {
                    days.add(rs.getString(1));
                }
            }
        }
        return days;
    }

}
