package pe.quipu.core.ruc;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RucTest {

    @ParameterizedTest
    @ValueSource(strings = {
            "20100227461", // real, from the sample
            "10452159428", // real natural person
            "20600662458",
            "15123456782", "16123456789", "17123456785", // each accepted prefix
            "20100000050", // 11 - (Σ mod 11) = 10 folds to 0
            "20100000131"  // 11 - (Σ mod 11) = 11 folds to 1
    })
    void accepts_valid_rucs(String text) {
        assertThat(Ruc.parse(text).value()).isEqualTo(text);
        assertThat(Ruc.parse(text)).hasToString(text);
    }

    @ParameterizedTest
    @ValueSource(strings = {"20100227461", "10452159428", "20100000050", "20100000131", "17123456785"})
    void completing_ten_digits_gives_the_check_digit_sunat_expects(String ruc) {
        assertThat(Ruc.completing(ruc.substring(0, 10)).value()).isEqualTo(ruc);
    }

    @ParameterizedTest
    @ValueSource(strings = {"201002274", "20100227461", "201002274A", "3010022746"})
    void completing_refuses_what_does_not_begin_a_ruc(String text) {
        assertThatThrownBy(() -> Ruc.completing(text)).isInstanceOf(InvalidRucException.class);
    }

    @ParameterizedTest
    @CsvSource(delimiter = ';', value = {
            "2010022746;NOT_ELEVEN_DIGITS;exactly 11 digits",
            "201002274611;NOT_ELEVEN_DIGITS;exactly 11 digits",
            "2010022746A;NOT_ELEVEN_DIGITS;exactly 11 digits",
            "ABCDEFGHIJK;NOT_ELEVEN_DIGITS;exactly 11 digits",
            "' 20100227461';NOT_ELEVEN_DIGITS;exactly 11 digits",
            "2010022746١;NOT_ELEVEN_DIGITS;exactly 11 digits", // Arabic-Indic one is a digit to Java, not to SUNAT
            "30123456781;UNKNOWN_PREFIX;not 30",
            "11123456789;UNKNOWN_PREFIX;not 11",
            "00000000000;UNKNOWN_PREFIX;not 00",
            "20100227462;WRONG_CHECK_DIGIT;check digit of 2010022746 is 1, not 2",
            "20100227460;WRONG_CHECK_DIGIT;check digit of 2010022746 is 1, not 0",
            "20100000051;WRONG_CHECK_DIGIT;is 0, not 1",
            "20100000130;WRONG_CHECK_DIGIT;is 1, not 0",
    })
    void rejects_and_names_the_failed_rule(String text, InvalidRucException.Rule rule, String message) {
        assertThatThrownBy(() -> Ruc.parse(text))
                .isInstanceOfSatisfying(InvalidRucException.class, e -> assertThat(e.rule()).isEqualTo(rule))
                .hasMessageContaining(message);
    }

    @Test
    void rejects_empty_and_null() {
        assertThatThrownBy(() -> Ruc.parse("")).isInstanceOf(InvalidRucException.class)
                .hasMessageContaining("exactly 11 digits");
        assertThatThrownBy(() -> Ruc.parse(null)).isInstanceOf(InvalidRucException.class)
                .hasMessageContaining("exactly 11 digits");
    }

    @Test
    void the_constructor_enforces_the_same_rules() {
        assertThatThrownBy(() -> new Ruc("20100227462")).isInstanceOf(InvalidRucException.class);
    }

    @ParameterizedTest
    @CsvSource(delimiter = ';', value = {
            "2010022746;got 10 digits",
            "201002274611;got 12 digits",
            "7;got 1 digit",
            "x;got 1 character including a non-digit",
            "<script>alert(1)</script>;got 25 characters including a non-digit",
    })
    void says_what_it_got_without_echoing_it(String text, String got) {
        assertThatThrownBy(() -> Ruc.parse(text))
                .hasMessage("a RUC is exactly 11 digits (0-9), " + got);
    }
}
