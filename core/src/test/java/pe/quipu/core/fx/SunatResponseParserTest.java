package pe.quipu.core.fx;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.YearMonth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** SUNAT's {@code listarTipoCambio} answers, over the samples in {@code sunat/} (written from contract §12). */
class SunatResponseParserTest {

    /** Wednesday 7 October 2026, 10:00 in Lima: September is settled. */
    private static final Instant CAPTURED = Instant.parse("2026-10-07T15:00:00Z");
    private static final YearMonth SEPTEMBER = YearMonth.of(2026, 9);
    private static final LocalDate START = SunatFxSettings.DEFAULT_SERIES_START;

    private final SunatResponseParser parser = new SunatResponseParser();

    @Test
    void a_month_of_publications_in_sunat_s_shape() throws IOException {
        SunatResponseParser.Result result = parser.parse(sample("listarTipoCambio-2026-09.json"), SEPTEMBER, CAPTURED,
                START);

        // September 2026: 22 weekdays, each with both sides.
        assertThat(result.publications()).hasSize(22);
        assertThat(result.publications().getFirst().fecha()).isEqualTo(LocalDate.of(2026, 9, 1));
        assertThat(result.publications().getLast().fecha()).isEqualTo(LocalDate.of(2026, 9, 30));
        assertThat(result.publications()).filteredOn(p -> p.fecha().equals(LocalDate.of(2026, 9, 29)))
                .containsExactly(new ExchangeRate(Moneda.USD, LocalDate.of(2026, 9, 29), new BigDecimal("3.432"),
                        new BigDecimal("3.440"), "sunat", CAPTURED));
        assertThat(result.listedWithoutValue()).isEmpty();
    }

    @Test
    void three_decimal_values_are_kept_as_published_trailing_zero_included() throws IOException {
        SunatResponseParser.Result result = parser.parse(sample("listarTipoCambio-2026-09.json"), SEPTEMBER, CAPTURED,
                START);

        ExchangeRate monday = result.publications().stream()
                .filter(p -> p.fecha().equals(LocalDate.of(2026, 9, 28))).findFirst().orElseThrow();
        // Published as "3.420" and "3.428": neither rounded nor shortened.
        assertThat(monday.compra()).isEqualTo(new BigDecimal("3.420"));
        assertThat(monday.compra().toPlainString()).isEqualTo("3.420");
        assertThat(monday.venta().toPlainString()).isEqualTo("3.428");
        assertThat(result.publications()).allSatisfy(p -> assertThat(p.compra().scale()).isEqualTo(3));
    }

    @Test
    void a_day_with_one_side_only_is_not_a_publication() throws IOException {
        SunatResponseParser.Result result = parser.parse(sample("listarTipoCambio-2026-09-one-sided.json"), SEPTEMBER,
                CAPTURED, START);

        assertThat(result.publications()).extracting(ExchangeRate::fecha).containsExactly(
                LocalDate.of(2026, 9, 1), LocalDate.of(2026, 9, 2), LocalDate.of(2026, 9, 4));
        assertThat(result.listedWithoutValue()).containsExactly(LocalDate.of(2026, 9, 3));
    }

    @Test
    void an_html_page_is_a_failure() throws IOException {
        String html = sample("listarTipoCambio-html.html");
        assertThatThrownBy(() -> parser.parse(html, SEPTEMBER, CAPTURED, START))
                .isInstanceOf(SunatFormatException.class).isInstanceOf(RatesUnavailableException.class)
                .hasMessageContaining("not JSON");
        assertThatThrownBy(() -> parser.parse("", SEPTEMBER, CAPTURED, START)).isInstanceOf(SunatFormatException.class);
        assertThatThrownBy(() -> parser.parse("{\"fecPublica\":\"29/09/2026\"}", SEPTEMBER, CAPTURED, START))
                .isInstanceOf(SunatFormatException.class).hasMessageContaining("not an array");
    }

    @Test
    void an_empty_array_for_a_month_that_should_have_rates_is_a_failure() throws IOException {
        String empty = sample("listarTipoCambio-empty.json");

        assertThatThrownBy(() -> parser.parse(empty, SEPTEMBER, CAPTURED, START))
                .isInstanceOf(SunatFormatException.class).hasMessageContaining("2026-09");
    }

    @Test
    void an_empty_array_is_a_month_without_publications_when_it_may_be_one() throws IOException {
        String empty = sample("listarTipoCambio-empty.json");

        // The current month on its 2nd: no settled weekday yet.
        assertThat(parser.parse(empty, YearMonth.of(2026, 10), Instant.parse("2026-10-02T15:00:00Z"), START)
                .publications()).isEmpty();
        // A month before SUNAT's series.
        assertThat(parser.parse(empty, YearMonth.of(1999, 6), CAPTURED, START).publications()).isEmpty();
    }

    @ParameterizedTest(name = "{0} in {1}, today {2}: {3}")
    @CsvSource({
            // The current month, Thursday 1 October: nothing settled.
            "2026-10, 2026-10-01, 2000-01-01, false",
            // Monday 5 October: Thursday 1 and Friday 2 are settled (Saturday 3 is not, nor Sunday 4): 2 weekdays.
            "2026-10, 2026-10-05, 2000-01-01, false",
            // Tuesday 6 October: Monday 5 is yesterday, still recent: 2.
            "2026-10, 2026-10-06, 2000-01-01, false",
            // Wednesday 7 October: Monday 5 is settled: 3.
            "2026-10, 2026-10-07, 2000-01-01, true",
            // A past month.
            "2026-09, 2026-10-07, 2000-01-01, true",
            // April 2027 starts with Holy Thursday and Good Friday (1 and 2): not enough on the 6th.
            "2027-04, 2027-04-06, 2000-01-01, false",
            // Before the series, or starting in its last two weekdays.
            "1999-12, 2026-10-07, 2000-01-01, false",
            "2026-09, 2026-10-07, 2026-09-29, false",
            "2026-09, 2026-10-07, 2026-09-28, true",
    })
    void which_months_should_have_rates(String month, String today, String start, boolean should) {
        assertThat(SunatResponseParser.shouldHaveRates(YearMonth.parse(month), LocalDate.parse(today),
                LocalDate.parse(start))).isEqualTo(should);
    }

    @Test
    void a_value_that_is_not_positive_is_a_failure() throws IOException {
        String zero = sample("listarTipoCambio-non-positive.json");

        assertThatThrownBy(() -> parser.parse(zero, SEPTEMBER, CAPTURED, START))
                .isInstanceOf(SunatFormatException.class).hasMessageContaining("not positive");
        assertThatThrownBy(() -> parser.parse(entry("29/09/2026", "-3.432", "C"), SEPTEMBER, CAPTURED, START))
                .isInstanceOf(SunatFormatException.class).hasMessageContaining("not positive");
    }

    @ParameterizedTest
    @ValueSource(strings = {"3.4321", "abc", "3,432", "", " ", "3.4e0", "NaN", "Infinity"})
    void a_value_that_is_not_a_number_of_at_most_three_decimals_is_a_failure(String value) {
        assertThatThrownBy(() -> parser.parse(entry("29/09/2026", value, "C"), SEPTEMBER, CAPTURED, START))
                .isInstanceOf(SunatFormatException.class);
    }

    @Test
    void fewer_decimals_are_the_same_number_at_sunat_s_three() {
        SunatResponseParser.Result result = parser.parse("""
                [{"fecPublica":"29/09/2026","valTipo":"3.44","codTipo":"C"},
                 {"fecPublica":"29/09/2026","valTipo":"3","codTipo":"V"}]""", SEPTEMBER, CAPTURED, START);

        assertThat(result.publications().getFirst().compra().toPlainString()).isEqualTo("3.440");
        assertThat(result.publications().getFirst().venta().toPlainString()).isEqualTo("3.000");
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "[{\"fecPublica\":\"29/9/2026\",\"valTipo\":\"3.432\",\"codTipo\":\"C\"}]",
            "[{\"fecPublica\":\"2026-09-29\",\"valTipo\":\"3.432\",\"codTipo\":\"C\"}]",
            "[{\"fecPublica\":\"31/09/2026\",\"valTipo\":\"3.432\",\"codTipo\":\"C\"}]",
            "[{\"fecPublica\":\"01/10/2026\",\"valTipo\":\"3.432\",\"codTipo\":\"C\"}]",
            "[{\"fecPublica\":\"29/09/2026\",\"valTipo\":\"3.432\",\"codTipo\":\"X\"}]",
            "[{\"fecPublica\":\"29/09/2026\",\"valTipo\":\"3.432\",\"codTipo\":\"c\"}]",
            "[{\"fecPublica\":\"29/09/2026\",\"valTipo\":3.432,\"codTipo\":\"C\"}]",
            "[{\"fecPublica\":\"29/09/2026\",\"codTipo\":\"C\"}]",
            "[{\"fecPublica\":null,\"valTipo\":\"3.432\",\"codTipo\":\"C\"}]",
            "[\"29/09/2026\"]",
            "[[]]",
            "[{\"fecPublica\":\"29/09/2026\",\"valTipo\":\"3.432\",\"codTipo\":\"C\"},"
                    + "{\"fecPublica\":\"29/09/2026\",\"valTipo\":\"3.433\",\"codTipo\":\"C\"}]",
    })
    void entries_of_another_shape_are_a_failure(String body) {
        assertThatThrownBy(() -> parser.parse(body, SEPTEMBER, CAPTURED, START)).isInstanceOf(SunatFormatException.class);
    }

    @Test
    void a_day_listed_twice_with_the_same_value_and_other_members_are_accepted() {
        SunatResponseParser.Result result = parser.parse("""
                [{"fecPublica":"29/09/2026","valTipo":"3.432","codTipo":"C","extra":1},
                 {"fecPublica":"29/09/2026","valTipo":"3.432","codTipo":"C"},
                 {"fecPublica":"29/09/2026","valTipo":"3.440","codTipo":"V"}]""", SEPTEMBER, CAPTURED, START);

        assertThat(result.publications()).singleElement().satisfies(p -> {
            assertThat(p.compra()).isEqualTo(new BigDecimal("3.432"));
            assertThat(p.venta()).isEqualTo(new BigDecimal("3.440"));
        });
    }

    private static String entry(String fecha, String value, String codTipo) {
        return "[{\"fecPublica\":\"" + fecha + "\",\"valTipo\":\"" + value + "\",\"codTipo\":\"" + codTipo + "\"}]";
    }

    static String sample(String name) throws IOException {
        try (InputStream in = SunatResponseParserTest.class.getResourceAsStream("/sunat/" + name)) {
            assertThat(in).as(name).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
