package pe.quipu.api.http;

import org.junit.jupiter.api.Test;
import pe.quipu.api.domain.Allowance;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The rate and quota headers of one allowance: the contract's five and the current draft's two, saying the same. */
class AllowanceHeadersTest {

    @Test
    void the_contracts_headers_and_the_drafts_fields_carry_the_same_numbers() {
        Map<String, String> headers = AllowanceHeaders.of(new Allowance(60, 59, 41, 1000, 999, 2_124_000));

        assertThat(headers).containsExactly(
                Map.entry("RateLimit-Limit", "60"),
                Map.entry("RateLimit-Remaining", "59"),
                Map.entry("RateLimit-Reset", "41"),
                Map.entry("X-Quota-Limit", "1000"),
                Map.entry("X-Quota-Remaining", "999"),
                Map.entry("RateLimit-Policy", "\"minute\";q=60;w=60, \"month\";q=1000"),
                Map.entry("RateLimit", "\"minute\";r=59;t=41, \"month\";r=999;t=2124000"));
    }

    @Test
    void the_drafts_fields_are_structured_field_lists_of_string_items_with_integer_parameters() {
        Map<String, String> headers = AllowanceHeaders.of(new Allowance(3000, 0, 1, 5_000_000, 0, 1));
        // RFC 9651: sf-list = list-member *( OWS "," OWS list-member ); item = sf-string *( ";" key "=" sf-integer ).
        String item = "\"[a-z]+\"(;[a-z][a-z0-9_.*-]*=-?[0-9]{1,15})+";
        assertThat(headers.get("RateLimit-Policy")).matches(item + "(, " + item + ")*");
        assertThat(headers.get("RateLimit")).matches(item + "(, " + item + ")*")
                .isEqualTo("\"minute\";r=0;t=1, \"month\";r=0;t=1");
    }
}
