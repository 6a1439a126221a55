package pe.quipu.api.accounts;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.api.testing.TestAccounts;

import java.net.http.HttpResponse;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static pe.quipu.api.testing.ProblemAssert.assertProblem;

/**
 * Control characters, lone surrogates and non-characters in any text input are a 400 naming the field, never a
 * PostgreSQL exception and a 500; names are stored NFC-normalised.
 */
class ControlCharactersTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    /** JSON escapes of what is refused: NUL, another C0, DEL, a C1, a lone surrogate of each kind, two non-characters. */
    @ParameterizedTest
    @ValueSource(strings = {"\\u0000", "\\u001b", "\\u007f", "\\u0085", "\\ud800", "\\udc00", "\\ufffe", "\\ufdd0"})
    void signup_refuses_them_in_email_and_nombre_naming_each_field(String escape) {
        HttpResponse<String> response = quipu.post("/v1/auth/signup", null, "application/json",
                "{\"email\":\"ana" + escape + "-" + UUID.randomUUID() + "@quipu.test\",\"password\":\"0123456789\","
                        + "\"nombre\":\"Ana" + escape + "\"}");
        JsonNode problem = assertProblem(response, 400, "validation_error");
        assertThat(problem.get("errors").findValuesAsText("field")).containsExactlyInAnyOrder("email", "nombre");
    }

    @Test
    void login_refuses_a_nul_in_the_email() {
        HttpResponse<String> response = quipu.post("/v1/auth/login", null, "application/json",
                "{\"email\":\"ana\\u0000@quipu.test\",\"password\":\"0123456789\"}");
        JsonNode problem = assertProblem(response, 400, "validation_error");
        assertThat(problem.get("errors").findValuesAsText("field")).containsExactly("email");
    }

    @Test
    void rectification_and_key_names_refuse_them_too() {
        TestAccounts.Session session = quipu.accounts.newSession();
        JsonNode me = assertProblem(quipu.patch("/v1/me", session.accessToken(), "application/json",
                "{\"nombre\":\"Ana\\u0000\"}"), 400, "validation_error");
        assertThat(me.get("errors").findValuesAsText("field")).containsExactly("nombre");
        JsonNode key = assertProblem(quipu.post("/v1/keys", session.accessToken(), "application/json",
                "{\"name\":\"ci\\ud800\",\"scopes\":[\"ruc:read\\u0000\"]}"), 400, "validation_error");
        assertThat(key.get("errors").findValuesAsText("field")).containsExactlyInAnyOrder("name", "scopes[0]");
    }

    @Test
    void an_operator_task_refuses_them_in_a_parameter() {
        JsonNode problem = assertProblem(quipu.task("grant-admin", "email", "ana\u0000@quipu.test"), 400,
                "validation_error");
        assertThat(problem.get("errors").findValuesAsText("field")).containsExactly("email");
    }

    @Test
    void names_are_stored_nfc_normalised() {
        String decomposed = "Jose\u0301 Pe\u0301rez";
        HttpResponse<String> response = quipu.post("/v1/auth/signup", null, "application/json",
                "{\"email\":\"jose-" + UUID.randomUUID() + "@quipu.test\",\"password\":\"0123456789\","
                        + "\"nombre\":\"" + decomposed + "\"}");
        assertThat(response.statusCode()).isEqualTo(201);
        String id = quipu.body(response).get("id").asText();
        assertThat(quipu.body(response).get("nombre").asText()).isEqualTo("Jos\u00e9 P\u00e9rez");
        String stored = quipu.database.jdbi().withHandle(h -> h.createQuery(
                "select nombre from accounts where id = cast(:id as uuid)").bind("id", id).mapTo(String.class).one());
        assertThat(stored).isEqualTo("Jos\u00e9 P\u00e9rez");
    }
}
