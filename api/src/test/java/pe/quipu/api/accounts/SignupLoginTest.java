package pe.quipu.api.accounts;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.api.testing.TestAccounts;

import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static pe.quipu.api.testing.ProblemAssert.assertProblem;
import static pe.quipu.api.testing.ProblemAssert.withoutRequestId;

/** Signup and login (contract §2), and which credential each kind of endpoint takes. */
class SignupLoginTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    @Test
    void signup_answers_the_account_and_puts_it_on_the_free_plan() throws Exception {
        String email = "Ana-" + UUID.randomUUID() + "@Example.pe";
        HttpResponse<String> response = quipu.post("/v1/auth/signup", null, "application/json",
                "{\"email\":\"" + email + "\",\"password\":\"0123456789\",\"nombre\":\"Ana Quispe\"}");
        assertThat(response.statusCode()).isEqualTo(201);
        JsonNode account = quipu.body(response);
        assertThat(account.get("email").asText()).isEqualTo(email);
        assertThat(account.get("nombre").asText()).isEqualTo("Ana Quispe");
        assertThat(account.get("createdAt").asText()).isEqualTo(quipu.clock.instant().toString());
        assertThat(account.has("password")).isFalse();
        try (Connection c = quipu.database.connection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("select plan, password_hash from subscriptions join accounts a on a.id = account_id"
                     + " where account_id = '" + account.get("id").asText() + "' and ended_at is null")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString("plan")).isEqualTo("free");
            assertThat(rs.getString("password_hash")).startsWith("$argon2id$").doesNotContain("0123456789");
        }
    }

    @Test
    void a_taken_email_is_409_conflict_whatever_its_case() {
        TestAccounts.Session session = quipu.accounts.newSession();
        HttpResponse<String> response = quipu.post("/v1/auth/signup", null, "application/json",
                "{\"email\":\"" + session.email().toUpperCase() + "\",\"password\":\"0123456789\",\"nombre\":\"X\"}");
        assertProblem(response, 409, "conflict");
    }

    @Test
    void signup_lists_every_fault_at_once() {
        HttpResponse<String> response = quipu.post("/v1/auth/signup", null, "application/json",
                "{\"email\":\"not-an-email\",\"password\":\"short\",\"extra\":1}");
        assertProblem(response, 400, "validation_error");
        assertThat(quipu.body(response).get("errors").findValuesAsText("field"))
                .containsExactlyInAnyOrder("extra", "email", "password", "nombre");
    }

    @Test
    void login_gives_a_bearer_pair_and_the_same_401_for_unknown_email_and_wrong_password() {
        TestAccounts.Session session = quipu.accounts.newSession();
        assertThat(session.accessToken().split("\\.")).hasSize(3);
        assertThat(session.refreshToken()).startsWith("qr_");
        HttpResponse<String> wrong = quipu.post("/v1/auth/login", null, "application/json",
                "{\"email\":\"" + session.email() + "\",\"password\":\"wrong password\"}");
        HttpResponse<String> unknown = quipu.post("/v1/auth/login", null, "application/json",
                "{\"email\":\"nobody-" + UUID.randomUUID() + "@quipu.test\",\"password\":\"wrong password\"}");
        assertProblem(wrong, 401, "unauthorized");
        assertProblem(unknown, 401, "unauthorized");
        assertThat(withoutRequestId(wrong.body())).isEqualTo(withoutRequestId(unknown.body()));
    }

    @Test
    void an_access_token_does_not_open_data_endpoints() {
        TestAccounts.Session session = quipu.accounts.newSession();
        assertProblem(quipu.get("/v1/ubigeos/150101", session.accessToken()), 401, "unauthorized");
        assertThat(quipu.get("/v1/ubigeos/150101", quipu.accounts.newKey(Scope.UBIGEOS_READ)).statusCode())
                .isEqualTo(200);
    }

    @Test
    void jwks_publishes_the_public_key_only() {
        HttpResponse<String> response = quipu.get("/.well-known/jwks.json", null);
        assertThat(response.statusCode()).isEqualTo(200);
        JsonNode key = quipu.body(response).get("keys").get(0);
        assertThat(key.get("kty").asText()).isEqualTo("EC");
        assertThat(key.get("crv").asText()).isEqualTo("P-256");
        assertThat(key.has("d")).isFalse();
    }
}
