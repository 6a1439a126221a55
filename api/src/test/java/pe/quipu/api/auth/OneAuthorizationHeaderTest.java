package pe.quipu.api.auth;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.testing.QuipuExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static pe.quipu.api.testing.ProblemAssert.assertProblem;

/** One Authorization header per request, or 400. */
class OneAuthorizationHeaderTest {

    private static final String LOOKUP = "/v1/ubigeos/150101";

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    @Test
    void two_authorization_headers_are_400_even_when_both_are_valid() {
        String key = quipu.accounts.newKey(Scope.UBIGEOS_READ);
        String other = quipu.accounts.newKey(Scope.UBIGEOS_READ);
        assertProblem(quipu.get(LOOKUP, key, "Authorization", "Bearer " + other), 400, "validation_error");
        assertProblem(quipu.get(LOOKUP, key, "Authorization", "Bearer " + key), 400, "validation_error");
        assertThat(quipu.body(quipu.get(LOOKUP, key, "Authorization", "Bearer x")).path("detail").asText())
                .contains("Authorization");
    }

    @Test
    void a_valid_first_header_does_not_win_over_a_second_one() {
        String key = quipu.accounts.newKey(Scope.UBIGEOS_READ);
        String raw = quipu.raw("GET " + LOOKUP + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + key
                + "\r\nauthorization: Bearer qk_live_" + "A".repeat(40) + "\r\nConnection: close\r\n\r\n");
        assertThat(raw).startsWith("HTTP/1.1 400");
        assertThat(raw).contains("application/problem+json").contains("\"type\":\"validation_error\"");
    }

    @Test
    void two_authorization_headers_are_400_on_every_route() {
        assertProblem(quipu.get("/v1/status", "a", "Authorization", "Bearer b"), 400, "validation_error");
        assertProblem(quipu.get("/v1/nothing-here", "a", "Authorization", "Bearer b"), 400, "validation_error");
        assertProblem(quipu.post("/v1/auth/login", "a", "application/json",
                "{\"email\":\"nobody@example.pe\",\"password\":\"whatever-it-is\"}", "Authorization", "Basic b"),
                400, "validation_error");
        assertProblem(quipu.get("/v1/me", quipu.accounts.newSession().accessToken(), "Authorization", ""),
                400, "validation_error");
    }

    @Test
    void one_header_still_authenticates() {
        assertThat(quipu.get(LOOKUP, quipu.accounts.newKey(Scope.UBIGEOS_READ)).statusCode()).isEqualTo(200);
    }
}
