package pe.quipu.api.privacy;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.testing.QuipuClient;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.api.testing.TestAccounts;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The export shows what Quipu keeps about the account holder, and nothing it keeps about someone else: a failed login
 * or a replayed refresh token may come from another person, so its row keeps the fact and the time but not that
 * person's address or user agent; and no audit row keeps an email address that a rectification replaced
 * (docs/data-inventory.md).
 */
class ExportOthersDataTest {

    private static final String JSON = "application/json";
    /** Someone else's client: an address and a user agent that must appear nowhere in the holder's export. */
    private static final String STRANGER_ADDRESS = "127.0.9.66";
    private static final String STRANGER_AGENT = "stranger-agent/6.6";

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    @Test
    void a_failed_login_by_someone_else_shows_when_but_not_their_address_or_user_agent() {
        TestAccounts.Session session = quipu.accounts.newSession();
        quipu.clock.advance(Duration.ofMinutes(1));
        Instant failedAt = quipu.clock.instant();
        HttpResponse<String> guess = stranger().post("/v1/auth/login", null, JSON,
                "{\"email\":\"" + session.email() + "\",\"password\":\"a wrong guess\"}", "User-Agent", STRANGER_AGENT);
        assertThat(guess.statusCode()).isEqualTo(401);
        quipu.clock.advance(Duration.ofMinutes(1));

        HttpResponse<String> export = quipu.get("/v1/me/export", session.accessToken());

        assertThat(export.statusCode()).as(export.body()).isEqualTo(200);
        JsonNode failed = row(quipu.body(export), "login.failed");
        assertThat(failed.get("at").asText()).isEqualTo(failedAt.toString());
        assertThat(failed.get("ip").isNull()).as(failed.toString()).isTrue();
        assertThat(failed.get("userAgent").isNull()).as(failed.toString()).isTrue();
        assertThat(export.body()).doesNotContain(STRANGER_ADDRESS).doesNotContain(STRANGER_AGENT);
        // The holder's own login keeps its address.
        assertThat(row(quipu.body(export), "login").get("ip").asText()).isEqualTo("127.0.0.1");
    }

    @Test
    void a_replayed_refresh_token_revokes_the_session_and_its_row_keeps_no_address_or_user_agent() {
        TestAccounts.Session session = quipu.accounts.newSession();
        assertThat(quipu.accounts.refresh(session.refreshToken()).statusCode()).isEqualTo(200);
        // Whoever presents the spent token may be the one who took it.
        HttpResponse<String> replay = stranger().post("/v1/auth/refresh", null, JSON,
                "{\"refreshToken\":\"" + session.refreshToken() + "\"}", "User-Agent", STRANGER_AGENT);
        assertThat(replay.statusCode()).isEqualTo(401);
        String token = quipu.body(quipu.accounts.login(session.email(), session.password())).get("accessToken").asText();

        HttpResponse<String> export = quipu.get("/v1/me/export", token);

        assertThat(export.statusCode()).as(export.body()).isEqualTo(200);
        JsonNode reuse = row(quipu.body(export), "session.reuse_detected");
        assertThat(reuse.get("ip").isNull()).as(reuse.toString()).isTrue();
        assertThat(reuse.get("userAgent").isNull()).as(reuse.toString()).isTrue();
        assertThat(reuse.get("details").get("sessionId").asText()).isNotBlank();
        assertThat(export.body()).doesNotContain(STRANGER_ADDRESS).doesNotContain(STRANGER_AGENT);
    }

    @Test
    void after_a_rectification_the_replaced_email_is_nowhere_in_the_export() {
        TestAccounts.Session session = quipu.accounts.newSession();
        String replacement = "rectified-" + UUID.randomUUID() + "@quipu.test";
        assertThat(quipu.patch("/v1/me", session.accessToken(), JSON, "{\"email\":\"" + replacement + "\"}")
                .statusCode()).isEqualTo(200);

        HttpResponse<String> export = quipu.get("/v1/me/export", session.accessToken());

        assertThat(export.statusCode()).as(export.body()).isEqualTo(200);
        assertThat(export.body().toLowerCase(Locale.ROOT)).doesNotContain(session.email().toLowerCase(Locale.ROOT));
        assertThat(export.body()).contains(replacement);
        JsonNode signup = row(quipu.body(export), "signup");
        assertThat(signup.get("details").has("email")).as(signup.toString()).isFalse();
        assertThat(row(quipu.body(export), "rectification").get("details").get("fields"))
                .extracting(JsonNode::asText).containsExactly("email");
    }

    @Test
    void changeset_018_clears_what_older_rows_kept_about_others_and_the_signup_email() throws Exception {
        UUID account = UUID.randomUUID();
        try (Connection c = quipu.database.connection(); Statement s = c.createStatement()) {
            // As the audit log was written before: the signup's email, a stranger's address on failures and reuse.
            s.executeUpdate("""
                    insert into audit_log (account_id, at, action, ip, user_agent, details) values
                      ('%1$s', now(), 'signup', '127.0.0.1', 'curl/8', '{"email": "old-%1$s@quipu.test"}'),
                      ('%1$s', now(), 'login.failed', '%2$s', '%3$s', '{}'),
                      ('%1$s', now(), 'session.reuse_detected', '%2$s', '%3$s', '{"sessionId": "s-1"}'),
                      ('%1$s', now(), 'login', '127.0.0.1', 'curl/8', '{"sessionId": "s-2"}')"""
                    .formatted(account, STRANGER_ADDRESS, STRANGER_AGENT));

            s.execute(changeset("018-audit-others-data"));

            List<String> rows = new ArrayList<>();
            try (ResultSet rs = s.executeQuery("select action, ip, user_agent, details::text from audit_log"
                    + " where account_id = '" + account + "' order by id")) {
                while (rs.next()) {
                    rows.add(rs.getString(1) + " " + rs.getString(2) + " " + rs.getString(3) + " " + rs.getString(4));
                }
            }
            assertThat(rows).containsExactly(
                    "signup 127.0.0.1 curl/8 {}",
                    "login.failed null null {}",
                    "session.reuse_detected null null {\"sessionId\": \"s-1\"}",
                    "login 127.0.0.1 curl/8 {\"sessionId\": \"s-2\"}");
            s.executeUpdate("delete from audit_log where account_id = '" + account + "'");
        }
    }

    /** The statements of one changeset of 018-audit-and-denylist.sql, as Liquibase runs them. */
    private static String changeset(String id) throws Exception {
        String file = new String(ExportOthersDataTest.class.getClassLoader()
                .getResourceAsStream("quipu/db/changes/018-audit-and-denylist.sql").readAllBytes(),
                StandardCharsets.UTF_8);
        int start = file.indexOf("--changeset quipu:" + id);
        assertThat(start).as("changeset %s", id).isNotNegative();
        int end = file.indexOf("--changeset", start + 1);
        return file.substring(start, end < 0 ? file.length() : end);
    }

    private static QuipuClient stranger() {
        return quipu.from(STRANGER_ADDRESS);
    }

    /** The newest audit row of this action in the export. */
    private static JsonNode row(JsonNode export, String action) {
        for (JsonNode row : export.get("auditLog")) {
            if (row.get("action").asText().equals(action)) {
                return row;
            }
        }
        throw new AssertionError("no " + action + " row in " + export.get("auditLog"));
    }
}
