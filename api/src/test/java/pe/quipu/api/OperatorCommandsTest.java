package pe.quipu.api;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.core.cli.Cli;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.util.JarLocation;
import org.junit.jupiter.api.Test;
import pe.quipu.api.support.TestQuipu;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static pe.quipu.api.support.ProblemAssert.assertProblem;

/**
 * The operator commands (create-key, revoke-key, sample-padron) run against the same embedded data directory while the API is running
 * (the test app is up; the command attaches to its server and must not stop it).
 */
class OperatorCommandsTest {

    private final TestQuipu quipu = TestQuipu.get();

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

        try (Connection c = quipu.connection();
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
        try (Connection c = quipu.connection();
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
    void an_unknown_scope_is_refused_and_nothing_is_written() throws Exception {
        String email = "refused-" + System.nanoTime() + "@quipu.test";
        Result result = run("create-key", "--email", email, "--scopes", "ruc:read,ruc:write");
        assertThat(result.error()).isPresent();
        assertThat(result.stdout()).isEmpty();
        assertThat(result.stderr()).contains("unknown scope 'ruc:write'");
        try (Connection c = quipu.connection();
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
        try (Connection c = quipu.connection();
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

    @Test
    void sample_padron_loads_the_bundled_lines_and_a_rerun_changes_nothing() throws Exception {
        Result first = run("sample-padron");
        assertThat(first.error()).isEmpty();
        assertThat(first.stdout()).startsWith("sample-padron: 61 records read, ");

        String key = quipu.newKey(pe.quipu.core.keys.Scope.RUC_READ);
        var before = quipu.get("/v1/ruc/20100227461", key);
        assertThat(before.statusCode()).isEqualTo(200);
        assertThat(quipu.body(before).path("direccion").asText())
                .isEqualTo("AV. FRANCISCO BOLOGNESI NRO. 495 ZONA INDUSTRIAL");

        quipu.clock.advance(java.time.Duration.ofDays(1));
        try {
            Result again = run("sample-padron");
            assertThat(again.stdout().strip()).isEqualTo("sample-padron: 61 records read, 0 inserted or changed");
        } finally {
            quipu.clock.set(TestQuipu.START);
        }
        var after = quipu.get("/v1/ruc/20100227461", key);
        assertThat(after.headers().firstValue("ETag")).isEqualTo(before.headers().firstValue("ETag"));
        assertThat(quipu.body(after).path("actualizado")).isEqualTo(quipu.body(before).path("actualizado"));
    }

    /** Runs a command the way `java -jar quipu-api.jar …` does, on the test app's data directory. */
    private Result run(String... args) throws Exception {
        // DropwizardTestSupport's overrides are dw.* system properties while the app runs, so the
        // command reads the same database settings as the app under test.
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream originalOut = System.out;
        PrintStream originalErr = System.err;
        QuipuApplication application = new QuipuApplication(quipu.clock);
        Bootstrap<QuipuConfiguration> bootstrap = new Bootstrap<>(application);
        application.initialize(bootstrap);
        String[] full = new String[args.length + 1];
        System.arraycopy(args, 0, full, 0, args.length);
        full[args.length] = Path.of("..", "config.yml").toString();
        Optional<Throwable> error;
        try (PrintStream capturedOut = new PrintStream(out, true, StandardCharsets.UTF_8);
             PrintStream capturedErr = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            System.setOut(capturedOut);
            System.setErr(capturedErr);
            error = new Cli(new JarLocation(QuipuApplication.class), bootstrap, capturedOut, capturedErr).run(full);
        } finally {
            System.setOut(originalOut);
            System.setErr(originalErr);
        }
        return new Result(out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8), error);
    }

    private record Result(String stdout, String stderr, Optional<Throwable> error) {
    }
}
