package pe.quipu.api.domain;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** How a message is said, and which language a request asks for. */
class TextTest {

    @Test
    void arguments_fill_their_places_and_nothing_else_in_a_pattern_is_special() {
        // ruc.batch.shape holds a JSON example in braces beside {0}; http.task.not_boolean has apostrophes.
        assertThat(Text.of("ruc.batch.shape", 100).english())
                .isEqualTo("send {\"rucs\": [\"20100227461\", …]} with 1 to 100 RUCs");
        assertThat(Text.of("http.task.not_boolean", "yes").english()).isEqualTo("must be true or false, got 'yes'");
        assertThat(Text.of("ruc.search.off").english()).endsWith("GET /v1/ruc/{ruc}");
    }

    @Test
    void numbers_are_not_grouped_in_either_language() {
        assertThat(Text.of("http.body_too_large", 1048576).in(Language.SPANISH))
                .isEqualTo("El cuerpo de la solicitud tiene como máximo 1048576 bytes");
        assertThat(Text.of("http.task.too_big", Integer.MAX_VALUE).english()).isEqualTo("must be at most 2147483647");
    }

    @Test
    void a_nested_text_is_said_in_the_same_language() {
        Text invalid = new DomainException.InvalidInput("rucs[0]", Text.of("domain.ruc.unknown_prefix", "99")).text();
        assertThat(invalid.in(Language.SPANISH)).isEqualTo("rucs[0]: un RUC empieza con 10, 15, 16, 17 o 20, no con 99");
        assertThat(invalid.in(Language.ENGLISH)).isEqualTo("rucs[0]: a RUC starts with 10, 15, 16, 17 or 20, not 99");
    }

    @Test
    void a_missing_argument_or_key_is_a_fault_of_the_code() {
        assertThatThrownBy(() -> Text.of("http.no_resource_at").english()).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> Text.of("http.no_such_key").english()).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> Text.of("nokey")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void accept_language_chooses_spanish_only_when_it_prefers_it() {
        assertThat(Language.preferredBy("es-PE")).isEqualTo(Language.SPANISH);
        assertThat(Language.preferredBy("es")).isEqualTo(Language.SPANISH);
        assertThat(Language.preferredBy("ES-pe")).isEqualTo(Language.SPANISH);
        assertThat(Language.preferredBy("es-419,es;q=0.9,en;q=0.8")).isEqualTo(Language.SPANISH);
        assertThat(Language.preferredBy("fr-FR, es;q=0.5")).isEqualTo(Language.SPANISH);
        assertThat(Language.preferredBy("en-US,es;q=0.9")).isEqualTo(Language.ENGLISH);
        assertThat(Language.preferredBy("en;q=0.4, es;q=0.8")).isEqualTo(Language.SPANISH);
        assertThat(Language.preferredBy("es;q=0")).isEqualTo(Language.ENGLISH);
        assertThat(Language.preferredBy("*")).isEqualTo(Language.ENGLISH);
        assertThat(Language.preferredBy("de")).isEqualTo(Language.ENGLISH);
        assertThat(Language.preferredBy("es;q=abc")).isEqualTo(Language.ENGLISH);
        assertThat(Language.preferredBy("")).isEqualTo(Language.ENGLISH);
        assertThat(Language.preferredBy(null)).isEqualTo(Language.ENGLISH);
    }

    @Test
    void a_ruc_fault_describes_the_input_in_the_callers_language() {
        assertThat(fault("2010022746").in(Language.SPANISH))
                .isEqualTo("un RUC tiene exactamente 11 dígitos (0-9); se recibió 10 dígitos");
        assertThat(fault("2010022746x").english())
                .isEqualTo("a RUC is exactly 11 digits (0-9), got 11 characters including a non-digit");
        assertThat(fault("20100227462").in(Language.SPANISH))
                .isEqualTo("dígito verificador incorrecto: el dígito verificador módulo 11 de 2010022746 es 1, no 2");
        assertThat(fault("99100227461").in(Language.SPANISH)).isEqualTo("un RUC empieza con 10, 15, 16, 17 o 20, no con 99");
        assertThat(fault("1").english()).isEqualTo("a RUC is exactly 11 digits (0-9), got 1 digit");
    }

    private static Text fault(String text) {
        try {
            pe.quipu.core.ruc.Ruc.parse(text);
        } catch (pe.quipu.core.ruc.InvalidRucException e) {
            // The English words are core's own message, which the ETL and the commands print.
            assertThat(RucFaults.of(text, e).english()).isEqualTo(e.getMessage());
            return RucFaults.of(text, e);
        }
        throw new AssertionError(text + " is a RUC");
    }
}
