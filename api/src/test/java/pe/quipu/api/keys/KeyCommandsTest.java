package pe.quipu.api.keys;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.testing.QuipuCommandLine.Result;
import pe.quipu.api.testing.QuipuCommandLine;
import pe.quipu.api.testing.QuipuExtension;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;

import static org.assertj.core.api.Assertions.assertThat;
import static pe.quipu.api.testing.ProblemAssert.assertProblem;

/**
 * The operator's key commands (create-key, revoke-key) run against the same embedded data directory while the API is
 * running (the test app is up; the command attaches to its server and must not stop it).
 */
class KeyCommandsTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    @Test
    void create_key_prints_only_the_key_which_then_works_and_is_announced() throws Exception {
        String email = "operator-" + System.nanoTime() + "@quipu.test";
        Result result = run("create-key", "--email", email, "--scopes", "ubigeos:read,ruc:read");

        assertThat(result.error()).isEmpty();
        String key = result.stdout().strip();
        assertThat(key).matches("qk_live_[0-9A-Za-z]{40}");
        assertThat(result.stderr()).contains(email).doesNotContain(key);

        // The API kept running on the shared server and knows the new key at once.
        assertThat(quipu.get("/v1/ubigeos/150101", key).statusCode()).isEqualTo(200);
        assertProblem(quipu.get("/v1/tipo-cambio", key), 403, "forbidden_scope");

        try (Connection c = quipu.database.connection();
             PreparedStatement q = c.prepareStatement("""
                     select e.data from events e join accounts a on a.id = e.account_id
                      where e.type = 'key.created' and a.email = ?""")) {
            q.setString(1, email);
            try (ResultSet rs = q.executeQuery()) {
                assertThat(rs.next()).isTrue();
                JsonNode data = quipu.json.readTree(rs.getString(1));
                assertThat(data.path("prefix").asText()).isEqualTo(key.substring(0, 14));
                assertThat(data.path("scopes").toString()).isEqualTo("[\"ruc:read\",\"ubigeos:read\"]");
                assertThat(data.has("keyId")).isTrue();
                assertThat(data.toString()).doesNotContain(key);
            }
        }
    }

    @Test
    void a_second_key_for_the_same_email_reuses_the_account() throws Exception {
        String email = "Same-" + System.nanoTime() + "@quipu.test";
        assertThat(run("create-key", "--email", email, "--scopes", "ruc:read").error()).isEmpty();
        assertThat(run("create-key", "--email", email.toLowerCase(), "--scopes", "ruc:read").error()).isEmpty();
        try (Connection c = quipu.database.connection();
             PreparedStatement q = c.prepareStatement(
                     "select count(distinct a.id), count(k.id) from accounts a join api_keys k on k.account_id = a.id "
                             + "where lower(a.email) = lower(?)")) {
            q.setString(1, email);
            try (ResultSet rs = q.executeQuery()) {
                rs.next();
                assertThat(rs.getInt(1)).isEqualTo(1);
                assertThat(rs.getInt(2)).isEqualTo(2);
            }
        }
    }

    @Test
    void a_deleted_account_gets_no_new_key() {
        pe.quipu.api.testing.TestAccounts.Session session = quipu.accounts.newSession();
        quipu.database.jdbi().useHandle(h -> h.execute("update accounts set deleted_at = now() where id = ?",
                session.accountId()));
        Result result = run("create-key", "--email", session.email(), "--scopes", "ruc:read");
        assertThat(result.error()).isPresent();
        assertThat(result.stdout()).isEmpty();
        assertThat(result.stderr()).contains("was deleted");
        long keys = quipu.database.jdbi().withHandle(h -> h.createQuery(
                "select count(*) from api_keys where account_id = :a").bind("a", session.accountId())
                .mapTo(Long.class).one());
        assertThat(keys).isZero();
    }

    @Test
    void an_unknown_scope_is_refused_and_nothing_is_written() throws Exception {
        String email = "refused-" + System.nanoTime() + "@quipu.test";
        Result result = run("create-key", "--email", email, "--scopes", "ruc:read,ruc:write");
        assertThat(result.error()).isPresent();
        assertThat(result.stdout()).isEmpty();
        assertThat(result.stderr()).contains("unknown scope 'ruc:write'");
        try (Connection c = quipu.database.connection();
             PreparedStatement q = c.prepareStatement("select count(*) from accounts where email = ?")) {
            q.setString(1, email);
            try (ResultSet rs = q.executeQuery()) {
                rs.next();
                assertThat(rs.getInt(1)).isZero();
            }
        }
    }

    @Test
    void revoke_key_makes_the_key_fail() throws Exception {
        String key = run("create-key", "--email", "revoke-" + System.nanoTime() + "@quipu.test",
                "--scopes", "ubigeos:read").stdout().strip();
        assertThat(quipu.get("/v1/ubigeos/150101", key).statusCode()).isEqualTo(200);

        assertThat(run("revoke-key", "--prefix", key.substring(0, 14)).error()).isEmpty();

        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(2))
                .until(() -> quipu.get("/v1/ubigeos/150101", key).statusCode() == 401);

        // The same revocation as DELETE /v1/keys/{id}: announced, and audited as the operator's.
        try (Connection c = quipu.database.connection();
             PreparedStatement q = c.prepareStatement("""
                     select (select count(*) from events e join api_keys k on k.id::text = e.data->>'keyId'
                              where e.type = 'key.revoked' and k.prefix = ?),
                            (select string_agg(a.action || ' ' || a.user_agent, ',' order by a.id) from audit_log a
                               join api_keys k on k.account_id = a.account_id where k.prefix = ?)""")) {
            q.setString(1, key.substring(0, 14));
            q.setString(2, key.substring(0, 14));
            try (ResultSet rs = q.executeQuery()) {
                rs.next();
                assertThat(rs.getInt(1)).isEqualTo(1);
                assertThat(rs.getString(2)).isEqualTo("key.created operator,key.revoked operator");
            }
        }
        Result again = run("revoke-key", "--prefix", key.substring(0, 14));
        assertThat(again.error()).isPresent();
        assertThat(again.stderr()).contains("no working key has the prefix");
    }

    private static Result run(String... args) {
        return QuipuCommandLine.run(quipu, args);
    }
}
