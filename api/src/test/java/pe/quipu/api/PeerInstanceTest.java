package pe.quipu.api;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.api.testing.TestAccounts;

import static org.assertj.core.api.Assertions.assertThat;

/** A second instance, as the cross-instance tests start one, serves the same data and honours the same credentials. */
class PeerInstanceTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    @Test
    void a_key_and_a_session_made_on_one_instance_work_on_the_other() {
        String key = quipu.accounts.newKey(Scope.UBIGEOS_READ);
        TestAccounts.Session session = quipu.accounts.newSession();
        assertThat(quipu.peer().get("/v1/ubigeos/150101", key).statusCode()).isEqualTo(200);
        assertThat(quipu.peer().get("/.well-known/jwks.json", null).body())
                .isEqualTo(quipu.get("/.well-known/jwks.json", null).body());
        assertThat(quipu.peer().uri("/").getPort()).isNotEqualTo(quipu.uri("/").getPort());
        assertThat(session.accessToken()).isNotBlank();
    }
}
