package pe.quipu.api.http;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The header's value and which answers a retry gets again, rule by rule. */
class IdempotencyKeyRulesTest {

    @Test
    void a_quoted_string_of_printable_ascii_or_the_bare_value() {
        assertThat(IdempotencyFeature.key("\"8e03978e-40d5-43e8-bc93-6894a57f9324\""))
                .isEqualTo("8e03978e-40d5-43e8-bc93-6894a57f9324");
        assertThat(IdempotencyFeature.key("8e03978e-40d5-43e8-bc93-6894a57f9324"))
                .isEqualTo("8e03978e-40d5-43e8-bc93-6894a57f9324");
        assertThat(IdempotencyFeature.key(" \"a\" ")).isEqualTo("a");
        assertThat(IdempotencyFeature.key("\"" + "k".repeat(255) + "\"")).hasSize(255);
        for (String bad : new String[] {"\"\"", "", "\"a b\"", "\"a\\\"b\"", "\"ñ\"", "\"" + "k".repeat(256) + "\"",
                "\"tab\there\""}) {
            assertThatThrownBy(() -> IdempotencyFeature.key(bad)).as(bad).isInstanceOf(ApiProblem.class)
                    .hasMessageContaining("validation_error");
        }
    }

    @Test
    void successes_and_refusals_are_kept_what_may_change_on_a_retry_is_not() {
        for (int status : new int[] {200, 201, 202, 204, 400, 403, 404, 410, 413, 415, 422}) {
            assertThat(IdempotencyFeature.kept(status)).as("%d", status).isTrue();
        }
        for (int status : new int[] {408, 409, 425, 429, 500, 502, 503}) {
            assertThat(IdempotencyFeature.kept(status)).as("%d", status).isFalse();
        }
    }
}
