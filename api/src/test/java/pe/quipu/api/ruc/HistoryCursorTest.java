package pe.quipu.api.ruc;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import pe.quipu.api.domain.DomainException.InvalidInput;
import pe.quipu.core.ruc.Ruc;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The history's cursor below HTTP: what it keeps, and every way a text is not one of this RUC's cursors. */
class HistoryCursorTest {

    private static final Ruc RUC = Ruc.parse("20617250005");
    private static final Ruc OTHER = Ruc.parse("20617250013");

    @Test
    void keeps_the_keyset_to_the_microsecond_and_reads_as_opaque_url_safe_text() {
        HistoryCursor cursor = new HistoryCursor(RUC.value(), Instant.parse("2026-10-07T15:00:00.123456Z"),
                9_007_199_254_740_993L);

        String text = cursor.encode();

        assertThat(text).matches("[A-Za-z0-9_-]+").hasSizeLessThanOrEqualTo(120);
        assertThat(HistoryCursor.decode(text, RUC)).isEqualTo(cursor);
    }

    @Test
    void an_instant_before_the_epoch_round_trips_too() {
        HistoryCursor cursor = new HistoryCursor(RUC.value(), Instant.parse("1969-12-31T23:59:59.999999Z"), 1);

        assertThat(HistoryCursor.decode(cursor.encode(), RUC)).isEqualTo(cursor);
    }

    @Test
    void a_cursor_of_another_ruc_s_history_is_refused_naming_cursor() {
        String text = new HistoryCursor(OTHER.value(), Instant.parse("2026-10-07T15:00:00Z"), 7).encode();

        assertThatThrownBy(() -> HistoryCursor.decode(text, RUC))
                .isInstanceOfSatisfying(InvalidInput.class, e -> {
                    assertThat(e.errors()).extracting(f -> f.field()).containsExactly("cursor");
                    assertThat(e.errors().getFirst().message().english()).contains("another RUC");
                });
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "!!!", "aGVsbG8", "not a cursor", "aDF8MjA2MTcyNTAwMDV8MTc2MDAwMHx4"})
    void text_that_is_not_a_cursor_is_refused_naming_cursor(String text) {
        assertNotACursor(text);
    }

    @Test
    void tampered_or_foreign_forms_are_refused() {
        for (String decoded : List.of(
                "h1|20617250005|1760000000000000",              // no id
                "h1|20617250005|1760000000000000|7|8",          // one field too many
                "h2|20617250005|1760000000000000|7",            // another version
                "h1|2061725000|1760000000000000|7",             // ten digits
                "h1|20617250005|17600000000000000000|7",        // more microseconds than a long holds
                "h1|20617250005|1760000000000000|-7",           // a negative id
                "s1|-1|0123456789abcdef|0|3f800000|20617250005")) { // a search's cursor
            assertNotACursor(Base64.getUrlEncoder().withoutPadding()
                    .encodeToString(decoded.getBytes(StandardCharsets.US_ASCII)));
        }
        assertNotACursor("a".repeat(121));
    }

    private static void assertNotACursor(String text) {
        assertThatThrownBy(() -> HistoryCursor.decode(text, RUC))
                .isInstanceOfSatisfying(InvalidInput.class, e -> {
                    assertThat(e.errors()).extracting(f -> f.field()).containsExactly("cursor");
                    assertThat(e.errors().getFirst().message().english()).contains("not a cursor");
                });
    }
}
