package pe.quipu.core.fx;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BcrpResponseParserTest {

    private static final RateSeries BCRP_USD = RateSeries.of(Fuente.BCRP, Moneda.USD);
    private static final RateSeries BCRP_EUR = RateSeries.of(Fuente.BCRP, Moneda.EUR);
    private static final Instant CAPTURED = Instant.parse("2026-10-07T15:00:00Z");

    private final BcrpResponseParser parser = new BcrpResponseParser();

    @Test
    void usd_sample_parses_set_rounds_half_up_and_skips_days_without_both_sides() throws IOException {
        BcrpResponseParser.Result result = parser.parse(sample("usd_interbancario_PD04637PD-PD04638PD.json"),
                BCRP_USD, CAPTURED);

        assertThat(result.publications()).extracting(ExchangeRate::fecha).containsExactly(
                LocalDate.of(2026, 9, 24), LocalDate.of(2026, 9, 25), LocalDate.of(2026, 9, 29),
                LocalDate.of(2026, 10, 1));
        ExchangeRate first = result.publications().getFirst();
        assertThat(first).isEqualTo(new ExchangeRate(Moneda.USD, LocalDate.of(2026, 9, 24),
                new BigDecimal("3.413"), new BigDecimal("3.418"), "bcrp", CAPTURED));
        // 3.4205 is exactly halfway: half-up gives 3.421.
        assertThat(result.publications().get(2).compra()).isEqualByComparingTo("3.421");
        assertThat(result.publications().get(2).venta()).isEqualByComparingTo("3.425");
        assertThat(result.publications()).allSatisfy(p -> assertThat(p.compra().scale()).isEqualTo(3));
        // n.d. on both sides (a Saturday) and on one side only (30.Set.26): listed, not publications.
        assertThat(result.listedWithoutValue()).containsExactlyInAnyOrder(
                LocalDate.of(2026, 9, 26), LocalDate.of(2026, 9, 30));
    }

    @Test
    void eur_sample_crosses_the_year() throws IOException {
        BcrpResponseParser.Result result = parser.parse(sample("eur_PD04647PD-PD04648PD.json"), BCRP_EUR, CAPTURED);

        assertThat(result.publications()).containsExactly(
                new ExchangeRate(Moneda.EUR, LocalDate.of(2025, 12, 30), new BigDecimal("3.941"),
                        new BigDecimal("4.196"), "bcrp", CAPTURED),
                new ExchangeRate(Moneda.EUR, LocalDate.of(2026, 1, 2), new BigDecimal("3.951"),
                        new BigDecimal("4.204"), "bcrp", CAPTURED));
        assertThat(result.listedWithoutValue()).containsExactly(LocalDate.of(2025, 12, 31));
    }

    @Test
    void sbs_sample_is_read_as_sbs_s_rates() throws IOException {
        BcrpResponseParser.Result result = parser.parse(sample("sbs_PD04639PD-PD04640PD.json"),
                RateSeries.of(Fuente.SBS, Moneda.USD), CAPTURED);

        assertThat(result.publications()).hasSize(6).allSatisfy(p -> assertThat(p.fuente()).isEqualTo("sbs"));
        assertThat(result.publications()).filteredOn(p -> p.fecha().equals(LocalDate.of(2026, 9, 28))).singleElement()
                .isEqualTo(new ExchangeRate(Moneda.USD, LocalDate.of(2026, 9, 28), new BigDecimal("3.432"),
                        new BigDecimal("3.440"), "sbs", CAPTURED));
        assertThat(result.listedWithoutValue()).containsExactly(LocalDate.of(2026, 9, 26));
    }

    @Test
    void all_twelve_spanish_months() {
        List<String> names = List.of("Ene", "Feb", "Mar", "Abr", "May", "Jun", "Jul", "Ago", "Set", "Oct", "Nov", "Dic");
        for (int i = 0; i < names.size(); i++) {
            assertThat(BcrpResponseParser.date("15." + names.get(i) + ".25", 2026))
                    .isEqualTo(LocalDate.of(2025, i + 1, 15));
        }
        assertThat(BcrpResponseParser.date("01.Sep.25", 2026)).isEqualTo(LocalDate.of(2025, 9, 1));
    }

    @Test
    void two_digit_years_pivot_one_year_ahead_of_the_current_year() {
        assertThat(BcrpResponseParser.year(26, 2026)).isEqualTo(2026);
        assertThat(BcrpResponseParser.year(27, 2026)).isEqualTo(2027);
        assertThat(BcrpResponseParser.year(28, 2026)).isEqualTo(1928);
        assertThat(BcrpResponseParser.year(97, 2026)).isEqualTo(1997);
        assertThat(BcrpResponseParser.year(0, 2026)).isEqualTo(2000);
    }

    @Test
    void decimals_come_from_the_series_config_and_default_to_three() {
        String body = """
                {"config":{"series":[{"name":"c","dec":"2"},{"name":"v"}]},
                 "periods":[{"name":"02.Ene.26","values":["3.7451","3.7449"]}]}""";

        ExchangeRate rate = parser.parse(body, BCRP_USD, CAPTURED).publications().getFirst();

        assertThat(rate.compra()).isEqualTo(new BigDecimal("3.75"));
        assertThat(rate.venta()).isEqualTo(new BigDecimal("3.745"));
    }

    @Test
    void a_missing_side_is_not_a_publication() {
        String body = """
                {"config":{"series":[]},"periods":[{"name":"05.Ene.26","values":["3.7"]},
                 {"name":"06.Ene.26","values":[" n.d. ","3.8"]}]}""";

        BcrpResponseParser.Result result = parser.parse(body, BCRP_USD, CAPTURED);

        assertThat(result.publications()).isEmpty();
        assertThat(result.listedWithoutValue()).containsExactlyInAnyOrder(
                LocalDate.of(2026, 1, 5), LocalDate.of(2026, 1, 6));
    }

    @Test
    void empty_periods_is_a_valid_empty_answer() {
        BcrpResponseParser.Result result = parser.parse(
                "{\"config\":{\"title\":\"x\",\"series\":[]},\"periods\":[]}", BCRP_EUR, CAPTURED);

        assertThat(result.publications()).isEmpty();
        assertThat(result.listedWithoutValue()).isEmpty();
    }

    @Test
    void html_and_other_shapes_are_format_failures() {
        String html = "<!DOCTYPE html><html><head><title>Request Rejected</title></head><body>…</body></html>";
        assertThatThrownBy(() -> parser.parse(html, BCRP_USD, CAPTURED))
                .isInstanceOf(BcrpFormatException.class).isInstanceOf(RatesUnavailableException.class);
        assertThatThrownBy(() -> parser.parse("", BCRP_USD, CAPTURED)).isInstanceOf(BcrpFormatException.class);
        assertThatThrownBy(() -> parser.parse("{\"config\":{}}", BCRP_USD, CAPTURED))
                .isInstanceOf(BcrpFormatException.class);
        assertThatThrownBy(() -> parser.parse("[1,2]", BCRP_USD, CAPTURED)).isInstanceOf(BcrpFormatException.class);
        assertThatThrownBy(() -> parser.parse(
                "{\"periods\":[{\"name\":\"2026-01-05\",\"values\":[\"1\",\"2\"]}]}", BCRP_USD, CAPTURED))
                .isInstanceOf(BcrpFormatException.class);
        assertThatThrownBy(() -> parser.parse(
                "{\"periods\":[{\"name\":\"31.Set.26\",\"values\":[\"1\",\"2\"]}]}", BCRP_USD, CAPTURED))
                .isInstanceOf(BcrpFormatException.class);
        assertThatThrownBy(() -> parser.parse(
                "{\"periods\":[{\"name\":\"05.Ene.26\",\"values\":[\"abc\",\"2\"]}]}", BCRP_USD, CAPTURED))
                .isInstanceOf(BcrpFormatException.class);
    }

    private static String sample(String name) throws IOException {
        try (InputStream in = BcrpResponseParserTest.class.getResourceAsStream("/bcrp/" + name)) {
            assertThat(in).as(name).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
