package pe.quipu.api.accounts;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.api.testing.TestAccounts;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static pe.quipu.api.testing.ProblemAssert.assertProblem;

/**
 * {@code DELETE /v1/me} and the purge (the spec's "Account deletion" states; contract §8): the phrase, the six
 * effects in one transaction seen by every instance, 410 for the account's other tokens, and the purge 30 days later
 * leaving no row that refers to the account.
 */
class AccountDeletionTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension().with("webhooks.workerEnabled", "false");

    static {
        quipu.dns.set("hooks.example.com", "93.184.215.14");
    }

    private static final String PHRASE = "{\"confirmation\":\"BORRAR MI CUENTA\"}";

    private HttpResponse<String> delete(String token, String body) {
        return quipu.send(HttpRequest.newBuilder(quipu.uri("/v1/me"))
                .method("DELETE", HttpRequest.BodyPublishers.ofString(body))
                .header("Content-Type", "application/json"), token);
    }

    /** A second session of the same account: its access token stays valid after the deletion. */
    private static String secondToken(TestAccounts.Session session) {
        return quipu.body(quipu.accounts.login(session.email(), session.password())).get("accessToken").asText();
    }

    @Test
    void anythingButTheExactPhraseIsAValidationErrorAndDeletesNothing() {
        TestAccounts.Session session = quipu.accounts.newSession();
        for (String body : List.of("{}", "{\"confirmation\":\"borrar mi cuenta\"}",
                "{\"confirmation\":\" BORRAR MI CUENTA\"}", "{\"confirmation\":\"BORRAR MI CUENTA \"}",
                "{\"confirmation\":\"BORRAR  MI CUENTA\"}", "{\"confirmation\":\"BÓRRAR MI CUENTA\"}",
                "{\"confirmation\":true}", "{\"confirmation\":\"BORRAR MI CUENTA\",\"motivo\":\"x\"}", "not json")) {
            JsonNode problem = assertProblem(delete(session.accessToken(), body), 400, "validation_error");
            assertThat(problem.get("detail").asText()).as(body).isNotEmpty();
        }
        assertThat(quipu.get("/v1/me", session.accessToken()).statusCode()).isEqualTo(200);
    }

    @Test
    void deletionRevokesKeysEndsSessionsAndAnswersGoneToTheOtherTokens() {
        TestAccounts.Session session = quipu.accounts.newSession();
        String key = quipu.accounts.issueKey(session.accountId(), Scope.UBIGEOS_READ, Scope.WEBHOOKS_MANAGE);
        assertThat(quipu.get("/v1/ubigeos/150101", key).statusCode()).isEqualTo(200);
        String other = secondToken(session);

        HttpResponse<String> deleted = delete(session.accessToken(), PHRASE);
        assertThat(deleted.statusCode()).as(deleted.body()).isEqualTo(204);

        assertProblem(quipu.get("/v1/ubigeos/150101", key), 401, "unauthorized");
        assertProblem(quipu.get("/v1/me", session.accessToken()), 401, "unauthorized");
        assertProblem(quipu.accounts.login(session.email(), session.password()), 401, "unauthorized");
        assertProblem(quipu.accounts.refresh(session.refreshToken()), 401, "unauthorized");
        JsonNode gone = assertProblem(quipu.get("/v1/me", other), 410, "gone");
        Instant deletedAt = Instant.parse(gone.get("deletedAt").asText());
        assertThat(deletedAt).isEqualTo(QuipuExtension.START);
        assertProblem(quipu.patch("/v1/me", other, "application/json", "{\"nombre\":\"X\"}"), 410, "gone");
        assertThat(assertProblem(delete(other, PHRASE), 410, "gone").get("deletedAt").asText())
                .isEqualTo(gone.get("deletedAt").asText());
        assertProblem(quipu.get("/v1/keys", other), 410, "gone");

        Long liveSessions = quipu.database.jdbi().withHandle(h -> h.createQuery(
                "select count(*) from sessions where account_id = :a").bind("a", session.accountId())
                .mapTo(Long.class).one());
        assertThat(liveSessions).isZero();
        String hash = quipu.database.jdbi().withHandle(h -> h.createQuery(
                "select coalesce(password_hash, 'none') from accounts where id = :a").bind("a", session.accountId())
                .mapTo(String.class).one());
        assertThat(hash).isEqualTo("none");
    }

    @Test
    void theAuditLogKeepsWhenAndWhatButNoLongerWho() {
        TestAccounts.Session session = quipu.accounts.newSession();
        quipu.patch("/v1/me", session.accessToken(), "application/json", "{\"nombre\":\"Ana\"}");
        long before = countAudit("account_id = '" + session.accountId() + "'");
        assertThat(before).isGreaterThanOrEqualTo(3);
        long anonymousBefore = countAudit("account_id is null");

        assertThat(delete(session.accessToken(), PHRASE).statusCode()).isEqualTo(204);

        assertThat(countAudit("account_id = '" + session.accountId() + "'")).isZero();
        // The account's rows, plus the deletion's own, now anonymous: at and action only.
        assertThat(countAudit("account_id is null")).isEqualTo(anonymousBefore + before + 1);
        assertThat(countAudit("account_id is null and action = 'rectification' and ip is null and user_agent is null"
                + " and details = '{}'::jsonb")).isPositive();
        assertThat(countAudit("action = 'account.deleted'")).isPositive();
    }

    @Test
    void webhookEndpointsStopAndPendingDeliveriesAreCancelled() {
        TestAccounts.Session session = quipu.accounts.newSession();
        quipu.task("set-plan", "email", session.email(), "plan", "pro");
        String key = quipu.accounts.issueKey(session.accountId(), Scope.WEBHOOKS_MANAGE);
        HttpResponse<String> created = quipu.post("/v1/webhooks", key, "application/json",
                "{\"url\":\"https://hooks.example.com/x\",\"events\":[\"key.created\"]}");
        String id = quipu.body(created).get("id").asText();
        assertThat(quipu.post("/v1/webhooks/" + id + "/test", key, null, "").statusCode()).isEqualTo(202);

        assertThat(delete(session.accessToken(), PHRASE).statusCode()).isEqualTo(204);

        String state = quipu.database.jdbi().withHandle(h -> h.createQuery(
                "select active || ' ' || disabled_reason from webhook_endpoints where id = cast(:id as uuid)")
                .bind("id", id).mapTo(String.class).one());
        assertThat(state).isEqualTo("false The account was deleted");
        Long pending = quipu.database.jdbi().withHandle(h -> h.createQuery(
                "select count(*) from webhook_deliveries where endpoint_id = cast(:id as uuid)")
                .bind("id", id).mapTo(Long.class).one());
        assertThat(pending).isZero();
    }

    @Test
    void theEmailOfADeletedAccountCannotSignUpAgainUntilThePurge() {
        TestAccounts.Session session = quipu.accounts.newSession();
        assertThat(delete(session.accessToken(), PHRASE).statusCode()).isEqualTo(204);
        String signup = "{\"email\":\"" + session.email() + "\",\"password\":\"another long password\","
                + "\"nombre\":\"Otra\"}";
        assertProblem(quipu.post("/v1/auth/signup", null, "application/json", signup), 409, "conflict");

        quipu.clock.advance(AccountPurge.WINDOW);
        assertThat(quipu.body(quipu.task("purge-deleted")).get("purged").asInt()).isPositive();
        assertThat(quipu.post("/v1/auth/signup", null, "application/json", signup).statusCode()).isEqualTo(201);
    }

    @Test
    void everyInstanceSeesTheDeletionWithinASecond() {
        TestAccounts.Session session = quipu.accounts.newSession();
        String key = quipu.accounts.issueKey(session.accountId(), Scope.UBIGEOS_READ);
        String other = secondToken(session);
        var peer = quipu.peer();
        assertThat(peer.get("/v1/ubigeos/150101", key).statusCode()).isEqualTo(200);
        assertThat(peer.get("/v1/me", other).statusCode()).isEqualTo(200);

        assertThat(delete(session.accessToken(), PHRASE).statusCode()).isEqualTo(204);

        await().atMost(Duration.ofSeconds(1)).pollInterval(Duration.ofMillis(50)).untilAsserted(() -> {
            assertProblem(peer.get("/v1/ubigeos/150101", key), 401, "unauthorized");
            assertProblem(peer.get("/v1/me", session.accessToken()), 401, "unauthorized");
            assertProblem(peer.get("/v1/me", other), 410, "gone");
        });
    }

    @Test
    void thePurgeKeepsA29Day23HourDeletionAndRemovesEveryRowOfA30DayOne() {
        TestAccounts.Session session = quipu.accounts.newSession();
        quipu.task("set-plan", "email", session.email(), "plan", "pro");
        String key = quipu.accounts.issueKey(session.accountId(), Scope.UBIGEOS_READ, Scope.WEBHOOKS_MANAGE);
        quipu.get("/v1/ubigeos/150101", key);
        String id = quipu.body(quipu.post("/v1/webhooks", key, "application/json",
                "{\"url\":\"https://hooks.example.com/p\",\"events\":[\"key.created\"]}")).get("id").asText();
        quipu.post("/v1/webhooks/" + id + "/test", key, null, "");
        await().atMost(Duration.ofSeconds(5)).until(() -> rowsReferring(session.accountId())
                .containsAll(List.of("usage_counters", "usage_days")));
        assertThat(delete(session.accessToken(), PHRASE).statusCode()).isEqualTo(204);
        long anonymous = countAudit("account_id is null");

        quipu.clock.advance(AccountPurge.WINDOW.minus(Duration.ofHours(1)));
        quipu.task("purge-deleted");
        assertThat(rowsReferring(session.accountId())).contains("accounts", "api_keys", "subscriptions");

        quipu.clock.advance(Duration.ofHours(1));
        JsonNode purged = quipu.body(quipu.task("purge-deleted"));
        assertThat(purged.get("purged").asInt()).isPositive();
        assertThat(rowsReferring(session.accountId())).isEmpty();
        assertThat(countAudit("account_id is null")).isGreaterThanOrEqualTo(anonymous);
        // Idempotent: nothing is left to purge for this account.
        assertThat(quipu.body(quipu.task("purge-deleted")).get("purged").asInt()).isZero();
    }

    /**
     * The tables that still hold a row referring to the account: every column that references accounts(id) or is
     * named account_id, found in information_schema, so that a new table cannot be forgotten.
     */
    private static List<String> rowsReferring(UUID account) {
        return quipu.database.jdbi().withHandle(h -> {
            List<List<String>> columns = h.createQuery("""
                            select distinct c.table_name, c.column_name
                              from information_schema.columns c
                             where c.table_schema = 'public'
                               and (c.column_name = 'account_id'
                                    or (c.table_name = 'accounts' and c.column_name = 'id')
                                    or exists (select 1
                                                 from information_schema.key_column_usage k
                                                 join information_schema.referential_constraints r
                                                   on r.constraint_name = k.constraint_name
                                                 join information_schema.constraint_column_usage u
                                                   on u.constraint_name = r.unique_constraint_name
                                                where k.table_name = c.table_name and k.column_name = c.column_name
                                                  and u.table_name = 'accounts'))
                               and c.data_type = 'uuid'
                             order by 1, 2""")
                    .map((rs, ctx) -> List.of(rs.getString(1), rs.getString(2))).list();
            assertThat(columns).extracting(List::getFirst).contains("accounts", "api_keys", "audit_log", "events",
                    "sessions", "subscriptions", "usage_counters", "usage_days", "rate_windows", "webhook_endpoints");
            return columns.stream()
                    .filter(c -> h.createQuery("select exists (select 1 from " + c.get(0) + " where " + c.get(1)
                            + " = :a)").bind("a", account).mapTo(Boolean.class).one())
                    .map(List::getFirst).toList();
        });
    }

    private static long countAudit(String where) {
        return quipu.database.jdbi().withHandle(h -> h.createQuery("select count(*) from audit_log where " + where)
                .mapTo(Long.class).one());
    }
}
