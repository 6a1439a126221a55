package pe.quipu.api.auth;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.api.testing.StandardErrorTee;

import java.net.http.HttpResponse;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static pe.quipu.api.testing.ProblemAssert.assertProblem;

/** Credentials travel in the Authorization header only, and never reach a log. */
class CredentialsOnlyInHeadersTest {

    private static final String LOOKUP = "/v1/ubigeos/150101";

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    @Test
    void a_valid_key_in_the_query_string_does_not_authenticate_and_is_400() {
        String key = quipu.accounts.newKey(Scope.UBIGEOS_READ);
        HttpResponse<String> response = quipu.get(LOOKUP + "?access_token=" + key, null);
        assertProblem(response, 400, "validation_error");
        assertThat(quipu.body(response).path("detail").asText()).contains("access_token").doesNotContain(key);
    }

    @Test
    void a_key_in_the_query_string_is_400_even_beside_a_valid_header() {
        String key = quipu.accounts.newKey(Scope.UBIGEOS_READ);
        assertProblem(quipu.get(LOOKUP + "?access_token=" + key, key), 400, "validation_error");
    }

    @Test
    void an_access_token_parameter_is_400_on_every_route_including_unauthenticated_and_unknown_ones() {
        String session = quipu.accounts.newSession().accessToken();
        assertProblem(quipu.get("/v1/me?access_token=" + session, null), 400, "validation_error");
        assertProblem(quipu.get("/v1/status?access_token=x", null), 400, "validation_error");
        assertProblem(quipu.get("/.well-known/jwks.json?access_token=x", null), 400, "validation_error");
        assertProblem(quipu.get("/v1/nothing-here?access_token=x", null), 400, "validation_error");
        assertProblem(quipu.post("/v1/auth/login?access_token=x", null, "application/json",
                "{\"email\":\"nobody@example.pe\",\"password\":\"whatever-it-is\"}"), 400, "validation_error");
        // However it is spelled: percent-encoded, another case, without a value.
        assertProblem(quipu.get("/v1/status?%61ccess_token=x", null), 400, "validation_error");
        assertProblem(quipu.get("/v1/status?a=1&ACCESS_TOKEN=x", null), 400, "validation_error");
        assertProblem(quipu.get("/v1/status?access_token", null), 400, "validation_error");
        // The status endpoint itself still answers.
        assertThat(quipu.get("/v1/status", null).statusCode()).isEqualTo(200);
    }

    @Test
    void the_request_log_never_writes_a_secret_named_query_value() {
        String key = quipu.accounts.newKey(Scope.UBIGEOS_READ);
        try (StandardErrorTee log = StandardErrorTee.open()) {
            quipu.get("/v1/status?access_token=" + key, null);
            quipu.get("/v1/nothing-here?token=tok-secret-1&key=key-secret-2&password=pw-secret-3&keep=visible-4",
                    null);
            quipu.get("/v1/status?%70assword=pw-secret-5", null);
            quipu.get(LOOKUP + "?Key=key-secret-6", key);

            // The request log is written asynchronously, after the answer.
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(log.text())
                    .contains("GET /v1/status?access_token=REDACTED HTTP/1.1")
                    .contains("GET /v1/nothing-here?token=REDACTED&key=REDACTED&password=REDACTED&keep=visible-4")
                    .contains("GET /v1/status?%70assword=REDACTED")
                    .contains("GET " + LOOKUP + "?Key=REDACTED"));
            assertThat(log.text()).doesNotContain(key).doesNotContain(key.substring(8))
                    .doesNotContain("tok-secret-1").doesNotContain("key-secret-2").doesNotContain("pw-secret-3")
                    .doesNotContain("pw-secret-5").doesNotContain("key-secret-6");
        }
    }

    @Test
    void refused_credentials_and_passwords_reach_no_log_line() {
        String key = quipu.accounts.newKey(Scope.UBIGEOS_READ);
        String unknownKey = "qk_live_" + "Z".repeat(40);
        String session = quipu.accounts.newSession().accessToken();
        String password = "pw-never-logged-7";
        try (StandardErrorTee log = StandardErrorTee.open()) {
            assertThat(quipu.get(LOOKUP, unknownKey).statusCode()).isEqualTo(401);
            assertThat(quipu.get(LOOKUP, session).statusCode()).isIn(401, 403);
            assertThat(quipu.get(LOOKUP, key + "x").statusCode()).isEqualTo(401);
            assertThat(quipu.get("/v1/me", key).statusCode()).isIn(401, 403);
            quipu.post("/v1/auth/login", null, "application/json",
                    "{\"email\":\"nobody@example.pe\",\"password\":\"" + password + "\"}");
            quipu.post("/v1/auth/login", null, "application/json", "{\"email\":1,\"password\":\"" + password);
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(log.text())
                    .contains("\"POST /v1/auth/login HTTP/1.1\" 400"));
            assertThat(log.text()).doesNotContain(unknownKey).doesNotContain(key).doesNotContain(session)
                    .doesNotContain(session.substring(session.lastIndexOf('.') + 1)).doesNotContain(password);
        }
    }
}
