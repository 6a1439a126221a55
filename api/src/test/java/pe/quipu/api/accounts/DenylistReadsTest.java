package pe.quipu.api.accounts;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.testing.QuipuClient;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.api.testing.TestAccounts;

import java.net.http.HttpRequest;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static pe.quipu.api.testing.ProblemAssert.assertProblem;

/**
 * A logout adds two rows to the token denylist; no instance rereads the whole list for it, however long the list is.
 * Each instance's reads are counted by the timer Dropwizard keeps per SQL object method (its admin /metrics):
 * {@code SessionRows.denied} is the read of every unexpired row; and by its gauge of denylist rows read.
 */
class DenylistReadsTest {

    private static final String FULL_READ = "pe.quipu.api.accounts.SessionRows.denied";

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    @AfterEach
    void deleteBulk() throws Exception {
        try (Connection c = quipu.database.connection(); Statement s = c.createStatement()) {
            s.executeUpdate("delete from token_denylist where value like 'bulk-%'");
        }
    }

    @Test
    void a_logout_among_10000_denials_is_taken_in_on_every_instance_without_rereading_them() throws Exception {
        // 10,000 unexpired denials of other tokens, written without their notifications (the peer reads them at its
        // start), as a busy hour of logouts leaves them.
        try (Connection c = quipu.database.connection(); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            s.execute("set local session_replication_role = replica");
            s.executeUpdate("""
                    insert into token_denylist (kind, value, expires_at)
                    select 'jti', 'bulk-' || n, timestamptz '2026-10-07 16:00:00+00' from generate_series(1, 10000) n""");
            c.commit();
        }
        QuipuExtension.Instance peer = quipu.peer();
        TestAccounts.Session session = quipu.accounts.newSession();
        assertThat(peer.get("/v1/me", session.accessToken()).statusCode()).isEqualTo(200);
        long mainBefore = fullReads(quipu);
        long peerBefore = fullReads(peer);
        long mainRowsBefore = rowsRead(quipu);
        long peerRowsBefore = rowsRead(peer);
        // Each has read the whole list once, at its start.
        assertThat(mainBefore).isPositive();
        assertThat(peerBefore).isPositive();

        assertThat(quipu.post("/v1/auth/logout", session.accessToken(), null, "").statusCode()).isEqualTo(204);

        assertProblem(quipu.get("/v1/me", session.accessToken()), 401, "unauthorized");
        await().atMost(Duration.ofSeconds(10)).until(() -> peer.get("/v1/me", session.accessToken()).statusCode() == 401);
        assertThat(fullReads(quipu)).as("full reads of the denylist on the instance that logged out")
                .isEqualTo(mainBefore);
        assertThat(fullReads(peer)).as("full reads of the denylist on the other instance").isEqualTo(peerBefore);
        // Each reads the two rows it is notified of (the token's jti, the session's sid), by their key.
        await().atMost(Duration.ofSeconds(10)).until(() -> rowsRead(quipu) - mainRowsBefore == 2);
        assertThat(rowsRead(peer) - peerRowsBefore).isEqualTo(2);
        // The 10,000 are still refused everywhere.
        assertThat(gauge(peer, "entries")).isGreaterThanOrEqualTo(10_000);
    }

    /** Rows of the denylist the instance has read since its start. */
    private static long rowsRead(QuipuClient instance) {
        return gauge(instance, "rows-read");
    }

    private static long gauge(QuipuClient instance, String name) {
        return instance.body(instance.send(HttpRequest.newBuilder(instance.adminUri("/metrics")).GET(), null))
                .path("gauges").path("pe.quipu.api.accounts.TokenDenylist." + name).path("value").asLong(-1);
    }

    /** How often the instance has read every unexpired denylist row. */
    private static long fullReads(QuipuClient instance) {
        return instance.body(instance.send(HttpRequest.newBuilder(instance.adminUri("/metrics")).GET(), null))
                .path("timers").path(FULL_READ).path("count").asLong(-1);
    }
}
