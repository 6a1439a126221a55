package pe.quipu.api.fx;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.core.fx.BcrpClient;
import pe.quipu.core.fx.BcrpSettings;
import pe.quipu.core.fx.Fuente;
import pe.quipu.core.fx.Moneda;
import pe.quipu.core.fx.RateSeries;
import pe.quipu.core.testing.BcrpStub.Answer;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The schedule's decision, and {@link RateCapture#captureNow()} against the real database and the BCRP
 * stub. Dates used: USD and EUR 2027-02 (later than any other test's, so no other answer changes).
 */
class RateCaptureTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    @Test
    void captures_only_during_lima_business_hours() {
        // Lima is UTC-5 all year.
        assertThat(RateCapture.shouldCapture(Instant.parse("2026-10-07T15:00:00Z"))).as("Wed 10:00").isTrue();
        assertThat(RateCapture.shouldCapture(Instant.parse("2026-10-07T13:00:00Z"))).as("Wed 08:00").isTrue();
        assertThat(RateCapture.shouldCapture(Instant.parse("2026-10-07T12:59:59Z"))).as("Wed 07:59:59").isFalse();
        assertThat(RateCapture.shouldCapture(Instant.parse("2026-10-08T00:59:59Z"))).as("Wed 19:59:59").isTrue();
        assertThat(RateCapture.shouldCapture(Instant.parse("2026-10-08T01:00:00Z"))).as("Wed 20:00").isFalse();
        assertThat(RateCapture.shouldCapture(Instant.parse("2026-10-05T13:30:00Z"))).as("Mon 08:30").isTrue();
        assertThat(RateCapture.shouldCapture(Instant.parse("2026-10-10T01:30:00Z"))).as("Fri 20:30").isFalse();
        assertThat(RateCapture.shouldCapture(Instant.parse("2026-10-09T23:30:00Z"))).as("Fri 18:30").isTrue();
        assertThat(RateCapture.shouldCapture(Instant.parse("2026-10-10T15:00:00Z"))).as("Sat 10:00").isFalse();
        assertThat(RateCapture.shouldCapture(Instant.parse("2026-10-11T15:00:00Z"))).as("Sun 10:00").isFalse();
        // 03:00 UTC Saturday is still Friday 22:00 in Lima: closed, but for the hour, not the day.
        assertThat(RateCapture.shouldCapture(Instant.parse("2026-10-10T03:00:00Z"))).as("Fri 22:00").isFalse();
        assertThat(RateCapture.shouldCapture(Instant.parse("2026-10-06T04:00:00Z"))).as("Mon 23:00").isFalse();
    }

    @Test
    void capture_now_stores_the_last_ten_days_of_both_currencies_and_survives_failures() throws SQLException {
        // Wednesday 2027-02-17, 10:00 in Lima.
        quipu.clock.set(Instant.parse("2027-02-17T15:00:00Z"));
        BcrpAnswers answers = new BcrpAnswers();
        for (LocalDate d = LocalDate.of(2027, 2, 1); d.isBefore(LocalDate.of(2027, 2, 17)); d = d.plusDays(1)) {
            if (d.getDayOfWeek().getValue() <= 5) {
                answers.day("PD04637PD-PD04638PD", d, "3.5" + d.getDayOfMonth(), "3.6" + d.getDayOfMonth());
                answers.day("PD04647PD-PD04648PD", d, "4.0" + d.getDayOfMonth(), "4.1" + d.getDayOfMonth());
            }
        }
        quipu.bcrp.respond(answers.responder());
        quipu.bcrp.clearRequests();

        try (BcrpClient client = client()) {
            RateCapture capture = capture(client);
            Map<RateSeries, Integer> captured = capture.captureNow();

            // 8..16 February: Mon 8 to Fri 12, Mon 15, Tue 16 (17th not yet published).
            assertThat(captured).containsEntry(RateSeries.of(Fuente.BCRP, Moneda.USD), 7)
                    .containsEntry(RateSeries.of(Fuente.BCRP, Moneda.EUR), 7);
            assertThat(quipu.bcrp.requests()).containsExactlyInAnyOrder(
                    "/estadisticas/series/api/PD04637PD-PD04638PD/json/2027-02-08/2027-02-17/esp",
                    "/estadisticas/series/api/PD04647PD-PD04648PD/json/2027-02-08/2027-02-17/esp");
            assertThat(rows("USD")).containsExactly(
                    "2027-02-08 3.580 3.680", "2027-02-09 3.590 3.690", "2027-02-10 3.510 3.610",
                    "2027-02-11 3.511 3.611", "2027-02-12 3.512 3.612", "2027-02-15 3.515 3.615",
                    "2027-02-16 3.516 3.616");
            assertThat(rows("EUR")).hasSize(7).first().isEqualTo("2027-02-08 4.080 4.180");

            // BCRP answers HTML: logged, nothing thrown, nothing stored, the schedule lives on.
            quipu.bcrp.respond(path -> Answer.html("<html>Request Rejected</html>"));
            assertThat(capture.captureNow()).isEmpty();
            assertThat(rows("USD")).hasSize(7);
        }
    }

    @Test
    void disabled_capture_starts_nothing() throws Exception {
        try (BcrpClient client = client()) {
            RateCapture capture = new RateCapture(service(client), RateSeries.of(Fuente.BCRP), quipu.clock,
                    Duration.ofMinutes(30), false, "bcrp.captureEnabled");
            quipu.bcrp.clearRequests();
            capture.start();
            capture.stop();
            assertThat(quipu.bcrp.requests()).isEmpty();
        }
    }

    private BcrpClient client() {
        return new BcrpClient(new BcrpSettings(quipu.bcrp.baseUrl(), Duration.ofMillis(1400), 3, Duration.ofMillis(50)),
                quipu.clock);
    }

    private ExchangeRateService service(BcrpClient client) {
        return new ExchangeRateService(new ExchangeRateStore(quipu.database.jdbi()), Map.of(Fuente.BCRP,
                new ExchangeRateService.Upstream(client, Duration.ofMinutes(30), Duration.ofHours(24))), quipu.clock);
    }

    private RateCapture capture(BcrpClient client) {
        return new RateCapture(service(client), RateSeries.of(Fuente.BCRP), quipu.clock, Duration.ofMinutes(30), true,
                "bcrp.captureEnabled");
    }

    private List<String> rows(String moneda) throws SQLException {
        try (Connection c = quipu.database.connection();
             PreparedStatement q = c.prepareStatement("select fecha, compra, venta from exchange_rates"
                     + " where fuente = 'bcrp' and moneda = ? and fecha between '2027-02-01' and '2027-02-28'"
                     + " order by fecha")) {
            q.setString(1, moneda);
            List<String> rows = new ArrayList<>();
            try (ResultSet rs = q.executeQuery()) {
                while (rs.next()) {
                    rows.add(rs.getObject(1, LocalDate.class) + " " + rs.getBigDecimal(2).toPlainString() + " "
                            + rs.getBigDecimal(3).toPlainString());
                }
            }
            return rows;
        }
    }
}
