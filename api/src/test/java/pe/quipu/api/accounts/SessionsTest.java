package pe.quipu.api.accounts;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.api.testing.TestAccounts;

import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static pe.quipu.api.testing.ProblemAssert.assertProblem;

/** Refresh with rotation and reuse detection, and logout (contract §2), on one instance and across two. */
class SessionsTest {

    private static final Duration PROPAGATION = Duration.ofSeconds(10);

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    @Test
    void a_refresh_spends_the_token_and_answers_the_next_pair() {
        TestAccounts.Session session = quipu.accounts.newSession();

        HttpResponse<String> response = quipu.accounts.refresh(session.refreshToken());

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Cache-Control")).hasValue("no-store");
        JsonNode pair = quipu.body(response);
        assertThat(pair.get("tokenType").asText()).isEqualTo("Bearer");
        assertThat(pair.get("expiresIn").asLong()).isEqualTo(900);
        assertThat(pair.get("refreshToken").asText()).startsWith("qr_").isNotEqualTo(session.refreshToken());
        assertThat(pair.get("accessToken").asText()).isNotEqualTo(session.accessToken());
        assertThat(quipu.get("/v1/me", pair.get("accessToken").asText()).statusCode()).isEqualTo(200);
        // Rotation spends the refresh token only: the earlier access token lives out its 15 minutes.
        assertThat(quipu.get("/v1/me", session.accessToken()).statusCode()).isEqualTo(200);
    }

    @Test
    void replaying_a_spent_refresh_token_revokes_the_whole_session_on_every_instance() throws Exception {
        TestAccounts.Session session = quipu.accounts.newSession();
        JsonNode second = quipu.body(quipu.accounts.refresh(session.refreshToken()));
        JsonNode third = quipu.body(quipu.accounts.refresh(second.get("refreshToken").asText()));
        List<String> accessTokens = List.of(session.accessToken(), second.get("accessToken").asText(),
                third.get("accessToken").asText());
        for (String token : accessTokens) {
            assertThat(quipu.peer().get("/v1/me", token).statusCode()).isEqualTo(200);
        }

        // The first token, spent by the first refresh, comes back: someone holds a copy of it.
        HttpResponse<String> replay = quipu.accounts.refresh(session.refreshToken());

        assertProblem(replay, 401, "unauthorized");
        assertThat(quipu.body(replay).get("detail").asText()).contains("revoked");
        // The session's newest refresh token dies with it, and so does every access token of the session.
        assertProblem(quipu.accounts.refresh(third.get("refreshToken").asText()), 401, "unauthorized");
        for (String token : accessTokens) {
            assertProblem(quipu.get("/v1/me", token), 401, "unauthorized");
        }
        await().atMost(PROPAGATION).untilAsserted(() -> {
            for (String token : accessTokens) {
                assertThat(quipu.peer().get("/v1/me", token).statusCode()).isEqualTo(401);
            }
        });
        assertProblem(quipu.accounts.refresh(session.refreshToken()), 401, "unauthorized");

        UUID sessionId = sid(session.accessToken());
        try (Connection c = quipu.database.connection()) {
            assertThat(single(c, "select revoked_at is not null from sessions where id = ?", sessionId)).isEqualTo("t");
            assertThat(single(c, "select count(*) from refresh_tokens where session_id = ?", sessionId)).isEqualTo("0");
            assertThat(single(c, "select expires_at = ? from token_denylist where kind = 'sid' and value = ?::text",
                    // The access tokens' 15 minutes, and a minute for one signed just after a concurrent refresh.
                    quipu.clock.instant().plus(Duration.ofMinutes(16)), sessionId)).isEqualTo("t");
        }
        assertThat(auditActions(session.accountId())).containsSubsequence("login", "session.reuse_detected");
    }

    @Test
    void every_spent_refresh_token_fails_afterwards_and_each_refresh_chains_on_the_newest() {
        TestAccounts.Session session = quipu.accounts.newSession();
        String previous = session.refreshToken();
        String current = quipu.body(quipu.accounts.refresh(previous)).get("refreshToken").asText();
        String next = quipu.body(quipu.accounts.refresh(current)).get("refreshToken").asText();

        assertProblem(quipu.accounts.refresh(current), 401, "unauthorized");
        assertProblem(quipu.accounts.refresh(previous), 401, "unauthorized");
        assertProblem(quipu.accounts.refresh(next), 401, "unauthorized");
    }

    @Test
    void two_refreshes_racing_with_one_token_give_one_pair_and_revoke_the_session() throws Exception {
        TestAccounts.Session session = quipu.accounts.newSession();
        CountDownLatch start = new CountDownLatch(1);
        List<CompletableFuture<HttpResponse<String>>> racing = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            racing.add(CompletableFuture.supplyAsync(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return quipu.accounts.refresh(session.refreshToken());
            }));
        }
        start.countDown();
        List<Integer> statuses = racing.stream().map(CompletableFuture::join).map(HttpResponse::statusCode).toList();

        assertThat(statuses).containsExactlyInAnyOrder(200, 401);
        HttpResponse<String> winner = racing.stream().map(CompletableFuture::join)
                .filter(r -> r.statusCode() == 200).findFirst().orElseThrow();
        // The loser presented a spent token: that is reuse, whoever sent it.
        assertProblem(quipu.accounts.refresh(quipu.body(winner).get("refreshToken").asText()), 401, "unauthorized");
    }

    @Test
    void a_refresh_token_lasts_30_days() {
        TestAccounts.Session session = quipu.accounts.newSession();
        TestAccounts.Session other = quipu.accounts.newSession();
        quipu.clock.advance(Duration.ofDays(30).minusSeconds(1));
        HttpResponse<String> inTime = quipu.accounts.refresh(session.refreshToken());
        assertThat(inTime.statusCode()).isEqualTo(200);
        quipu.clock.advance(Duration.ofSeconds(1));
        assertProblem(quipu.accounts.refresh(other.refreshToken()), 401, "unauthorized");
        // The token issued by the refresh counts its 30 days from then.
        quipu.clock.advance(Duration.ofDays(29));
        assertThat(quipu.accounts.refresh(quipu.body(inTime).get("refreshToken").asText()).statusCode())
                .isEqualTo(200);
    }

    @Test
    void a_refresh_for_a_deleted_account_is_401() throws Exception {
        TestAccounts.Session session = quipu.accounts.newSession();
        markDeleted(session.accountId());

        assertProblem(quipu.accounts.refresh(session.refreshToken()), 401, "unauthorized");
    }

    @Test
    void an_unknown_refresh_token_is_401_and_a_malformed_body_400() {
        assertProblem(quipu.accounts.refresh("qr_" + "A".repeat(43)), 401, "unauthorized");
        assertProblem(quipu.accounts.refresh("not a token"), 401, "unauthorized");
        HttpResponse<String> missing = quipu.post("/v1/auth/refresh", null, "application/json", "{}");
        assertThat(assertProblem(missing, 400, "validation_error").get("errors").findValuesAsText("field"))
                .containsExactly("refreshToken");
        assertProblem(quipu.post("/v1/auth/refresh", null, "application/json", "{\"refreshToken\":42}"),
                400, "validation_error");
        assertProblem(quipu.post("/v1/auth/refresh", null, null, "{}"), 415, "unsupported_media_type");
    }

    @Test
    void logout_ends_this_session_only_and_holds_on_every_instance() throws Exception {
        TestAccounts.Session session = quipu.accounts.newSession();
        JsonNode refreshed = quipu.body(quipu.accounts.refresh(session.refreshToken()));
        String sibling = refreshed.get("accessToken").asText();
        // A second login of the same account is another session, untouched by this logout.
        JsonNode otherSession = quipu.body(quipu.accounts.login(session.email(), session.password()));
        UUID sessionId = sid(session.accessToken());
        for (String token : List.of(session.accessToken(), sibling)) {
            assertThat(quipu.get("/v1/me", token).statusCode()).isEqualTo(200);
        }

        // Logged out through the second instance, which answers a request without a body or content type.
        HttpResponse<String> logout = quipu.peer().post("/v1/auth/logout", session.accessToken(), null, "");

        assertThat(logout.statusCode()).isEqualTo(204);
        assertThat(logout.body()).isEmpty();
        await().atMost(PROPAGATION).untilAsserted(() -> {
            assertThat(quipu.get("/v1/me", session.accessToken()).statusCode()).isEqualTo(401);
            assertThat(quipu.get("/v1/me", sibling).statusCode()).isEqualTo(401);
        });
        assertProblem(quipu.peer().get("/v1/me", session.accessToken()), 401, "unauthorized");
        assertProblem(quipu.peer().get("/v1/me", sibling), 401, "unauthorized");
        assertProblem(quipu.accounts.refresh(refreshed.get("refreshToken").asText()), 401, "unauthorized");
        assertProblem(quipu.post("/v1/auth/logout", session.accessToken(), null, ""), 401, "unauthorized");
        assertThat(quipu.get("/v1/me", otherSession.get("accessToken").asText()).statusCode()).isEqualTo(200);
        assertThat(quipu.accounts.refresh(otherSession.get("refreshToken").asText()).statusCode()).isEqualTo(200);

        try (Connection c = quipu.database.connection()) {
            assertThat(single(c, "select count(*) from sessions where id = ?", sessionId)).isEqualTo("0");
            assertThat(single(c, "select count(*) from refresh_tokens where session_id = ?", sessionId)).isEqualTo("0");
            assertThat(single(c, "select count(*) from token_denylist where kind = 'sid' and value = ?::text",
                    sessionId)).isEqualTo("1");
            assertThat(single(c, "select expires_at = ? from token_denylist where kind = 'jti' and value = ?",
                    QuipuExtension.START.plus(Duration.ofMinutes(15)), claims(session.accessToken()).getJWTID()))
                    .isEqualTo("t");
        }
        assertThat(auditActions(session.accountId())).endsWith("logout");
    }

    @Test
    void logout_takes_an_access_token_only() {
        TestAccounts.Session session = quipu.accounts.newSession();
        assertProblem(quipu.post("/v1/auth/logout", null, null, ""), 401, "unauthorized");
        assertProblem(quipu.post("/v1/auth/logout", quipu.accounts.newKey(Scope.UBIGEOS_READ), null, ""), 401,
                "unauthorized");
        assertProblem(quipu.post("/v1/auth/logout", session.refreshToken(), null, ""), 401, "unauthorized");
        assertThat(quipu.get("/v1/me", session.accessToken()).statusCode()).isEqualTo(200);
    }

    @Test
    void an_access_token_dies_at_its_expiry_while_the_refresh_token_gets_a_fresh_one() {
        TestAccounts.Session session = quipu.accounts.newSession();
        quipu.clock.advance(Duration.ofMinutes(15));
        assertProblem(quipu.get("/v1/me", session.accessToken()), 401, "unauthorized");
        JsonNode pair = quipu.body(quipu.accounts.refresh(session.refreshToken()));
        assertThat(quipu.get("/v1/me", pair.get("accessToken").asText()).statusCode()).isEqualTo(200);
    }

    /** The session an access token belongs to, read from its {@code sid} claim. */
    static UUID sid(String accessToken) throws java.text.ParseException {
        return UUID.fromString(claims(accessToken).getStringClaim("sid"));
    }

    static com.nimbusds.jwt.JWTClaimsSet claims(String accessToken) throws java.text.ParseException {
        return com.nimbusds.jwt.SignedJWT.parse(accessToken).getJWTClaimsSet();
    }

    private void markDeleted(UUID accountId) throws SQLException {
        try (Connection c = quipu.database.connection();
             PreparedStatement update = c.prepareStatement("update accounts set deleted_at = ? where id = ?")) {
            update.setObject(1, java.sql.Timestamp.from(quipu.clock.instant()));
            update.setObject(2, accountId);
            update.executeUpdate();
        }
    }

    private List<String> auditActions(UUID accountId) {
        return quipu.database.texts("select action from audit_log where account_id = ? order by id", accountId);
    }

    /** The one value of a one-row query, as text. */
    static String single(Connection c, String sql, Object... parameters) throws SQLException {
        try (PreparedStatement q = c.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                Object p = parameters[i] instanceof Instant instant
                        ? java.time.OffsetDateTime.ofInstant(instant, java.time.ZoneOffset.UTC) : parameters[i];
                q.setObject(i + 1, p);
            }
            try (ResultSet rs = q.executeQuery()) {
                assertThat(rs.next()).as("a row for %s", sql).isTrue();
                return rs.getString(1);
            }
        }
    }
}
