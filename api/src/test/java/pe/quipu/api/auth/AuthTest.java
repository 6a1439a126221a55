package pe.quipu.api.auth;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.keys.KeyIssuer;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.core.events.EventOutbox;

import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Timestamp;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static pe.quipu.api.testing.ProblemAssert.assertProblem;

/** API keys and scopes on the data endpoints (interface spec, Authentication). */
class AuthTest {

    private static final String LOOKUP = "/v1/ubigeos/150101";

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    @Test
    void a_key_with_the_scope_gets_the_data() {
        assertThat(quipu.get(LOOKUP, quipu.accounts.newKey(Scope.UBIGEOS_READ)).statusCode()).isEqualTo(200);
    }

    @Test
    void no_authorization_header_is_401_with_a_bearer_challenge() {
        HttpResponse<String> response = quipu.get(LOOKUP, null);
        assertProblem(response, 401, "unauthorized");
        assertThat(response.headers().firstValue("WWW-Authenticate").orElse("")).startsWith("Bearer");
        assertThat(response.headers().firstValue("Cache-Control")).hasValue("no-store");
    }

    @Test
    void an_unknown_key_is_401() {
        assertProblem(quipu.get(LOOKUP, "qk_live_" + "A".repeat(40)), 401, "unauthorized");
    }

    @Test
    void a_malformed_key_or_another_scheme_is_401() {
        assertProblem(quipu.get(LOOKUP, "not-a-key"), 401, "unauthorized");
        String key = quipu.accounts.newKey(Scope.UBIGEOS_READ);
        assertProblem(quipu.get(LOOKUP, null, "Authorization", "Basic " + key), 401, "unauthorized");
        assertProblem(quipu.get(LOOKUP, null, "Authorization", "Bearer"), 401, "unauthorized");
    }

    @Test
    void a_key_without_the_scope_is_403_forbidden_scope() {
        HttpResponse<String> response = quipu.get(LOOKUP,
                quipu.accounts.newKey(Scope.RUC_READ, Scope.TIPO_CAMBIO_READ));
        assertProblem(response, 403, "forbidden_scope");
        assertThat(quipu.body(response).path("detail").asText()).contains("ubigeos:read");
    }

    @Test
    void a_revoked_key_stops_working_even_though_it_was_cached() throws Exception {
        String key = quipu.accounts.newKey(Scope.UBIGEOS_READ);
        assertThat(quipu.get(LOOKUP, key).statusCode()).isEqualTo(200); // now in the cache

        KeyIssuer issuer = new KeyIssuer(quipu.clock, new EventOutbox(quipu.clock, quipu.json));
        quipu.database.jdbi().useTransaction(h -> issuer.revokeByPrefix(h, key.substring(0, 14)).orElseThrow());

        // Another process revoked it (as revoke-key does): the notification reaches the API within moments.
        await().atMost(Duration.ofSeconds(2)).pollInterval(Duration.ofMillis(20))
                .until(() -> quipu.get(LOOKUP, key).statusCode() == 401);
        assertProblem(quipu.get(LOOKUP, key), 401, "unauthorized");
    }

    @Test
    void a_key_past_its_expiry_is_401_without_any_notification() throws Exception {
        String key = quipu.accounts.newKey(Scope.UBIGEOS_READ);
        try (Connection c = quipu.database.connection();
             PreparedStatement grace = c.prepareStatement(
                     "update api_keys set status = 'grace', expires_at = ? where prefix = ?")) {
            grace.setTimestamp(1, Timestamp.from(quipu.clock.instant().plus(Duration.ofHours(24))));
            grace.setString(2, key.substring(0, 14));
            grace.executeUpdate();
        }
        await().atMost(Duration.ofSeconds(2)).until(() -> quipu.get(LOOKUP, key).statusCode() == 200);

        quipu.clock.advance(Duration.ofHours(24).plusSeconds(1));
        assertProblem(quipu.get(LOOKUP, key), 401, "unauthorized");
    }
}
