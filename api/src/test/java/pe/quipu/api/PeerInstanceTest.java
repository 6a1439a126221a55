package pe.quipu.api;

import org.junit.jupiter.api.Test;
import pe.quipu.api.support.TestQuipu;
import pe.quipu.core.keys.Scope;

import static org.assertj.core.api.Assertions.assertThat;

/** The second instance the cross-instance tests use serves the same data and honours the same credentials. */
class PeerInstanceTest {

    private final TestQuipu quipu = TestQuipu.get();

    @Test
    void a_key_and_a_session_made_on_one_instance_work_on_the_other() {
        String key = quipu.newKey(Scope.UBIGEOS_READ);
        TestQuipu.Session session = quipu.newSession();
        TestQuipu.Peer peer = quipu.peer();
        assertThat(peer.get("/v1/ubigeos/150101", key).statusCode()).isEqualTo(200);
        assertThat(peer.get("/.well-known/jwks.json", null).body())
                .isEqualTo(quipu.get("/.well-known/jwks.json", null).body());
        assertThat(peer.uri("/").getPort()).isNotEqualTo(quipu.uri("/").getPort());
        assertThat(session.accessToken()).isNotBlank();
    }
}
