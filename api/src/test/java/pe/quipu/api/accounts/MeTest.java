package pe.quipu.api.accounts;

import com.fasterxml.jackson.databind.JsonNode;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import pe.quipu.api.audit.AuditLog;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.domain.Text;
import pe.quipu.api.plans.AccountLimitsCache;
import pe.quipu.api.plans.PlanTable;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.api.testing.TestAccounts;

import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static pe.quipu.api.testing.ProblemAssert.assertProblem;

/** The profile: {@code GET /v1/me} and its rectification, {@code PATCH /v1/me} (contract §8). */
class MeTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    @Test
    void get_answers_the_profile_and_nothing_else() {
        TestAccounts.Session session = quipu.accounts.newSession();

        HttpResponse<String> response = quipu.get("/v1/me", session.accessToken());

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Cache-Control")).hasValue("no-store");
        JsonNode me = quipu.body(response);
        assertThat(fieldNames(me)).containsExactly("id", "email", "nombre", "usageAlertPercent", "createdAt");
        assertThat(me.get("id").asText()).isEqualTo(session.accountId().toString());
        assertThat(me.get("email").asText()).isEqualTo(session.email());
        assertThat(me.get("nombre").asText()).isEqualTo("Test User");
        assertThat(me.get("usageAlertPercent").asInt()).isEqualTo(80);
        assertThat(me.get("createdAt").asText()).isEqualTo(QuipuExtension.START.toString());
    }

    @Test
    void created_at_is_the_same_instant_in_the_signup_answer_and_in_the_profile() {
        quipu.clock.set(QuipuExtension.START.plusNanos(123_456_789));
        String email = "precise-" + UUID.randomUUID() + "@quipu.test";
        JsonNode signup = quipu.body(quipu.post("/v1/auth/signup", null, "application/json",
                "{\"email\":\"" + email + "\",\"password\":\"0123456789\",\"nombre\":\"N\"}"));
        String access = quipu.body(quipu.accounts.login(email, "0123456789")).get("accessToken").asText();
        assertThat(quipu.body(quipu.get("/v1/me", access)).get("createdAt")).isEqualTo(signup.get("createdAt"));
        assertThat(signup.get("createdAt").asText()).isEqualTo("2026-10-07T15:00:00.123456Z");
    }

    @Test
    void me_takes_an_access_token_and_never_an_api_key() {
        String key = quipu.accounts.newKey(Scope.UBIGEOS_READ, Scope.RUC_READ, Scope.TIPO_CAMBIO_READ,
                Scope.WEBHOOKS_MANAGE);
        assertProblem(quipu.get("/v1/me", key), 401, "unauthorized");
        assertProblem(quipu.patch("/v1/me", key, "application/json", "{\"nombre\":\"X\"}"), 401, "unauthorized");
        assertProblem(quipu.get("/v1/me", null), 401, "unauthorized");
    }

    @Test
    void patch_changes_the_members_sent_and_audits_which_ones() throws Exception {
        TestAccounts.Session session = quipu.accounts.newSession();
        String email = "renamed-" + UUID.randomUUID() + "@quipu.test";

        HttpResponse<String> response = quipu.patch("/v1/me", session.accessToken(), "application/json",
                "{\"nombre\":\"  Ana Quispe  \",\"email\":\"" + email + "\"}");

        assertThat(response.statusCode()).isEqualTo(200);
        JsonNode me = quipu.body(response);
        assertThat(me.get("nombre").asText()).isEqualTo("Ana Quispe");
        assertThat(me.get("email").asText()).isEqualTo(email);
        assertThat(me.get("usageAlertPercent").asInt()).isEqualTo(80);
        assertThat(quipu.body(quipu.get("/v1/me", session.accessToken()))).isEqualTo(me);
        assertThat(rectifications(session.accountId())).containsExactly("[\"nombre\", \"email\"]");
        // The email is the login from now on.
        assertThat(quipu.accounts.login(email, session.password()).statusCode()).isEqualTo(200);
        assertProblem(quipu.accounts.login(session.email(), session.password()), 401, "unauthorized");
    }

    @Test
    void patch_with_the_current_values_changes_nothing_and_audits_nothing() throws Exception {
        TestAccounts.Session session = quipu.accounts.newSession();

        HttpResponse<String> response = quipu.patch("/v1/me", session.accessToken(), "application/json",
                "{\"nombre\":\"Test User\",\"usageAlertPercent\":80}");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(rectifications(session.accountId())).isEmpty();
    }

    @Test
    void an_email_another_account_uses_is_409_conflict_whatever_its_case() {
        TestAccounts.Session session = quipu.accounts.newSession();
        TestAccounts.Session other = quipu.accounts.newSession();

        HttpResponse<String> response = quipu.patch("/v1/me", session.accessToken(), "application/json",
                "{\"email\":\"" + other.email().toUpperCase() + "\",\"nombre\":\"Changed\"}");

        assertProblem(response, 409, "conflict");
        JsonNode me = quipu.body(quipu.get("/v1/me", session.accessToken()));
        assertThat(me.get("email").asText()).isEqualTo(session.email());
        assertThat(me.get("nombre").asText()).isEqualTo("Test User");
    }

    @Test
    void an_invalid_patch_lists_every_fault_and_changes_nothing() {
        TestAccounts.Session session = quipu.accounts.newSession();

        HttpResponse<String> response = quipu.patch("/v1/me", session.accessToken(), "application/json",
                "{\"nombre\":\"   \",\"email\":\"not-an-email\",\"usageAlertPercent\":101,\"password\":\"x\"}");

        JsonNode problem = assertProblem(response, 400, "validation_error");
        assertThat(problem.get("errors").findValuesAsText("field"))
                .containsExactlyInAnyOrder("nombre", "email", "usageAlertPercent", "password");
        assertThat(quipu.body(quipu.get("/v1/me", session.accessToken())).get("nombre").asText()).isEqualTo("Test User");
    }

    @Test
    void each_malformed_member_is_400_validation_error_naming_it() {
        TestAccounts.Session session = quipu.accounts.newSession();
        String[][] cases = {
                {"{\"usageAlertPercent\":0}", "usageAlertPercent"},
                {"{\"usageAlertPercent\":\"50\"}", "usageAlertPercent"},
                {"{\"usageAlertPercent\":50.5}", "usageAlertPercent"},
                {"{\"usageAlertPercent\":null}", "usageAlertPercent"},
                {"{\"nombre\":null}", "nombre"},
                {"{\"nombre\":\"" + "x".repeat(201) + "\"}", "nombre"},
                {"{\"email\":42}", "email"},
                {"{\"id\":\"" + UUID.randomUUID() + "\"}", "id"},
        };
        for (String[] c : cases) {
            HttpResponse<String> response = quipu.patch("/v1/me", session.accessToken(), "application/json", c[0]);
            assertThat(assertProblem(response, 400, "validation_error").get("errors").findValuesAsText("field"))
                    .as(c[0]).containsExactly(c[1]);
        }
        assertProblem(quipu.patch("/v1/me", session.accessToken(), "application/json", "{}"), 400, "validation_error");
        assertProblem(quipu.patch("/v1/me", session.accessToken(), "application/json", "[]"), 400, "validation_error");
        assertProblem(quipu.patch("/v1/me", session.accessToken(), "application/json", "{\"nombre\":"),
                400, "validation_error");
        assertProblem(quipu.patch("/v1/me", session.accessToken(), "text/plain", "{\"nombre\":\"X\"}"),
                415, "unsupported_media_type");
        // 1 and 100 are the bounds, both allowed.
        for (int percent : new int[]{1, 100}) {
            HttpResponse<String> ok = quipu.patch("/v1/me", session.accessToken(), "application/json",
                    "{\"usageAlertPercent\":" + percent + "}");
            assertThat(quipu.body(ok).get("usageAlertPercent").asInt()).isEqualTo(percent);
        }
    }

    @Test
    void a_new_alert_threshold_is_announced_to_every_instance_s_limits_cache() throws Exception {
        TestAccounts.Session session = quipu.accounts.newSession();
        try (Connection listener = quipu.database.connection(); Statement s = listener.createStatement()) {
            s.execute("listen " + AccountLimitsCache.CHANNEL);

            HttpResponse<String> response = quipu.patch("/v1/me", session.accessToken(), "application/json",
                    "{\"usageAlertPercent\":55}");

            assertThat(quipu.body(response).get("usageAlertPercent").asInt()).isEqualTo(55);
            List<String> payloads = new ArrayList<>();
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (!payloads.contains(session.accountId().toString()) && System.nanoTime() < deadline) {
                PGNotification[] notifications = listener.unwrap(PGConnection.class).getNotifications(500);
                if (notifications != null) {
                    for (PGNotification n : notifications) {
                        payloads.add(n.getParameter());
                    }
                }
            }
            assertThat(payloads).contains(session.accountId().toString());
            assertThat(rectifications(session.accountId())).containsExactly("[\"usageAlertPercent\"]");
        }
    }

    @Test
    void the_instance_that_changes_the_threshold_sees_it_in_its_limits_at_once() {
        TestAccounts.Session session = quipu.accounts.newSession();
        // A rectification and a limits cache wired as the application wires them, without any notification
        // listener: only the rectification's own eviction can make the cache see the change.
        Jdbi jdbi = quipu.database.jdbi();
        AccountLimitsCache limits = new AccountLimitsCache(jdbi, new PlanTable(quipu.configuration().getPlans()));
        Profiles profiles = new Profiles(jdbi, new AuditLog(quipu.clock, quipu.json), limits,
                quipu.configuration().getAuth().getEmailChangeThrottle().throttle(Text.of("accounts.throttle.email_changes"), quipu.clock));
        assertThat(limits.get(session.accountId()).orElseThrow().usageAlertPercent()).isEqualTo(80);

        profiles.rectify(session.accountId(), new Profiles.Rectification(null, null, 35),
                new AuditLog.Origin("127.0.0.1", "test"));

        assertThat(limits.get(session.accountId()).orElseThrow().usageAlertPercent()).isEqualTo(35);
    }

    @Test
    void a_deleted_account_s_tokens_get_410_gone_with_the_deletion_date_on_me() throws Exception {
        TestAccounts.Session session = quipu.accounts.newSession();
        try (Connection c = quipu.database.connection();
             PreparedStatement update = c.prepareStatement("update accounts set deleted_at = now() where id = ?")) {
            update.setObject(1, session.accountId());
            update.executeUpdate();
        }
        assertThat(assertProblem(quipu.get("/v1/me", session.accessToken()), 410, "gone").get("deletedAt").asText())
                .isNotEmpty();
        assertProblem(quipu.patch("/v1/me", session.accessToken(), "application/json", "{\"nombre\":\"X\"}"),
                410, "gone");
    }

    /** The {@code fields} of each rectification audit row of the account, oldest first. */
    private List<String> rectifications(UUID accountId) throws Exception {
        List<String> rows = new ArrayList<>();
        try (Connection c = quipu.database.connection();
             PreparedStatement q = c.prepareStatement(
                     "select details->'fields' from audit_log where account_id = ? and action = 'rectification' order by id")) {
            q.setObject(1, accountId);
            try (ResultSet rs = q.executeQuery()) {
                while (rs.next()) {
                    rows.add(rs.getString(1));
                }
            }
        }
        return rows;
    }

    private static List<String> fieldNames(JsonNode node) {
        List<String> names = new ArrayList<>();
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            names.add(it.next());
        }
        return names;
    }
}
