package pe.quipu.api.plans;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.keys.KeyIssuer;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.core.events.EventOutbox;
import pe.quipu.core.testing.TestDatabase;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static pe.quipu.api.testing.ProblemAssert.assertProblem;

/**
 * The operator's subscription tasks on the admin connector (contract §1 operator tasks, §2 plans): set-plan,
 * cancel-subscription, grant-admin, and the renewals and cancellations applied as the clock passes a Lima month.
 */
class SubscriptionTasksTest {

    /** The Lima month after QuipuExtension.START (2026-10-07) starts at 2026-11-01T00:00-05:00. */
    private static final Instant NOVEMBER = Instant.parse("2026-11-01T05:00:00Z");
    private static final Instant DECEMBER = Instant.parse("2026-12-01T05:00:00Z");

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    @Test
    void set_plan_starts_a_new_subscription_and_announces_exactly_the_spec_fields() throws Exception {
        Account account = newAccount();
        String freeId = currentSubscription(account).id();

        HttpResponse<String> response = task("set-plan", "email", account.email(), "plan", "pro");

        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        JsonNode answer = quipu.body(response);
        assertThat(answer.path("plan").asText()).isEqualTo("pro");
        assertThat(answer.path("previousPlan").asText()).isEqualTo("free");
        assertThat(answer.path("monthlyQuota").asLong()).isEqualTo(500_000);
        assertThat(answer.path("rateLimitRpm").asInt()).isEqualTo(600);
        assertThat(answer.path("renewsAt").asText()).isEqualTo(NOVEMBER.toString());
        assertThat(answer.path("changed").asBoolean()).isTrue();

        List<Row> history = subscriptions(account);
        assertThat(history).hasSize(2);
        assertThat(history.get(0)).satisfies(free -> {
            assertThat(free.id()).isEqualTo(freeId);
            assertThat(free.endedAt()).isEqualTo(QuipuExtension.START);
        });
        Row pro = history.get(1);
        assertThat(pro.id()).startsWith("sub_").isNotEqualTo(freeId).isEqualTo(answer.path("subscriptionId").asText());
        assertThat(pro.plan()).isEqualTo("pro");
        assertThat(pro.startedAt()).isEqualTo(QuipuExtension.START);
        assertThat(pro.renewsAt()).isEqualTo(NOVEMBER);
        assertThat(pro.monthlyQuota()).isNull();
        assertThat(pro.rateLimitRpm()).isNull();
        assertThat(pro.endedAt()).isNull();

        List<JsonNode> updates = events(account, "subscription.updated");
        assertThat(updates).hasSize(1);
        assertThat(updates.getFirst()).isEqualTo(quipu.json.readTree("""
                {"subscriptionId": "%s", "plan": "pro", "previousPlan": "free", "renewsAt": "2026-11-01T05:00:00Z"}"""
                .formatted(pro.id())));

        assertThat(audit(account, "plan.changed")).singleElement().isEqualTo(quipu.json.readTree("""
                {"plan": "pro", "previousPlan": "free", "monthlyQuota": 500000, "rateLimitRpm": 600}"""));
        assertThat(auditOrigin(account, "plan.changed")).isEqualTo("operator");
    }

    @Test
    void overrides_apply_to_that_account_on_every_instance_and_a_later_set_plan_without_them_clears_them() {
        Account account = newAccount();
        Account neighbour = newAccount();
        AccountLimitsCache here = quipu.application().accountLimits();
        AccountLimitsCache there = quipu.peer().application().accountLimits();
        // Both instances have the account's free limits cached before the change.
        assertThat(here.get(account.id()).orElseThrow().monthlyQuota()).isEqualTo(1_000);
        assertThat(there.get(account.id()).orElseThrow().rateLimitRpm()).isEqualTo(60);

        assertThat(task("set-plan", "email", account.email(), "plan", "enterprise",
                "monthlyQuota", "12000000", "rateLimitRpm", "9000").statusCode()).isEqualTo(200);

        AccountLimits limits = here.get(account.id()).orElseThrow();
        assertThat(limits.plan()).isEqualTo("enterprise");
        assertThat(limits.monthlyQuota()).isEqualTo(12_000_000);
        assertThat(limits.rateLimitRpm()).isEqualTo(9_000);
        assertThat(limits.batchCap()).isEqualTo(500);
        assertThat(limits.webhookEndpoints()).isEqualTo(50);
        assertThat(limits.subscriptionId()).isEqualTo(currentSubscription(account).id());
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            AccountLimits seen = there.get(account.id()).orElseThrow();
            assertThat(seen.monthlyQuota()).isEqualTo(12_000_000);
            assertThat(seen.rateLimitRpm()).isEqualTo(9_000);
        });
        assertThat(here.get(neighbour.id()).orElseThrow().monthlyQuota()).isEqualTo(1_000);

        HttpResponse<String> plain = task("set-plan", "email", account.email(), "plan", "enterprise");
        assertThat(quipu.body(plain).path("changed").asBoolean()).isTrue();
        assertThat(currentSubscription(account).monthlyQuota()).isNull();
        assertThat(here.get(account.id()).orElseThrow().monthlyQuota()).isEqualTo(5_000_000);
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                assertThat(there.get(account.id()).orElseThrow().rateLimitRpm()).isEqualTo(3_000));
        assertThat(events(account, "subscription.updated")).extracting(e -> e.path("previousPlan").asText())
                .containsExactly("free", "enterprise");
    }

    @Test
    void setting_the_same_plan_and_overrides_again_changes_nothing() {
        Account account = newAccount();
        task("set-plan", "email", account.email(), "plan", "starter", "rateLimitRpm", "400");

        HttpResponse<String> again = task("set-plan", "email", account.email(), "plan", "starter", "rateLimitRpm", "400");

        assertThat(again.statusCode()).isEqualTo(200);
        assertThat(quipu.body(again).path("changed").asBoolean()).isFalse();
        assertThat(quipu.body(again).path("rateLimitRpm").asInt()).isEqualTo(400);
        assertThat(subscriptions(account)).hasSize(2);
        assertThat(events(account, "subscription.updated")).hasSize(1);
        assertThat(audit(account, "plan.changed")).hasSize(1);
    }

    @Test
    void a_cancellation_takes_effect_at_the_end_of_the_paid_period_and_falls_back_to_free() throws Exception {
        Account account = newAccount();
        String proId = quipu.body(task("set-plan", "email", account.email(), "plan", "pro")).path("subscriptionId").asText();

        HttpResponse<String> response = task("cancel-subscription", "email", account.email());

        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        JsonNode answer = quipu.body(response);
        assertThat(answer.path("subscriptionId").asText()).isEqualTo(proId);
        assertThat(answer.path("cancelAt").asText()).isEqualTo(NOVEMBER.toString());
        assertThat(answer.path("effective").asBoolean()).isFalse();
        assertThat(quipu.body(task("cancel-subscription", "email", account.email())).path("changed").asBoolean())
                .isFalse();
        assertThat(audit(account, "subscription.cancel_scheduled")).hasSize(1);

        // Until the period ends the account keeps its plan.
        quipu.clock.set(NOVEMBER.minusSeconds(1));
        assertThat(apply().statusCode()).isEqualTo(200);
        assertThat(currentSubscription(account).id()).isEqualTo(proId);
        assertThat(events(account, "subscription.canceled")).isEmpty();

        quipu.clock.set(NOVEMBER.plusSeconds(30));
        apply();

        Row free = currentSubscription(account);
        assertThat(free.plan()).isEqualTo("free");
        assertThat(free.id()).isNotEqualTo(proId);
        assertThat(free.startedAt()).isEqualTo(NOVEMBER);
        assertThat(free.renewsAt()).isEqualTo(DECEMBER);
        assertThat(subscriptions(account)).filteredOn(r -> r.id().equals(proId)).singleElement()
                .extracting(Row::endedAt).isEqualTo(NOVEMBER);
        assertThat(events(account, "subscription.canceled")).singleElement().isEqualTo(quipu.json.readTree("""
                {"subscriptionId": "%s", "plan": "pro", "canceledAt": "2026-11-01T05:00:00Z"}""".formatted(proId)));
        // The cancellation is not also a renewal or a plan change.
        assertThat(events(account, "subscription.updated")).hasSize(1);
        assertThat(audit(account, "subscription.canceled")).hasSize(1);
        assertThat(quipu.application().accountLimits().get(account.id()).orElseThrow().plan()).isEqualTo("free");

        apply();
        assertThat(events(account, "subscription.canceled")).hasSize(1);
    }

    @Test
    void an_immediate_cancellation_puts_the_account_on_free_at_once() throws Exception {
        Account account = newAccount();
        String starterId = quipu.body(task("set-plan", "email", account.email(), "plan", "starter",
                "monthlyQuota", "70000")).path("subscriptionId").asText();
        assertThat(quipu.application().accountLimits().get(account.id()).orElseThrow().monthlyQuota()).isEqualTo(70_000);

        HttpResponse<String> response = task("cancel-subscription", "email", account.email(), "immediate", "true");

        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        assertThat(quipu.body(response).path("effective").asBoolean()).isTrue();
        Row free = currentSubscription(account);
        assertThat(free.plan()).isEqualTo("free");
        assertThat(free.monthlyQuota()).isNull();
        assertThat(free.startedAt()).isEqualTo(QuipuExtension.START);
        assertThat(events(account, "subscription.canceled")).singleElement().isEqualTo(quipu.json.readTree("""
                {"subscriptionId": "%s", "plan": "starter", "canceledAt": "%s"}"""
                .formatted(starterId, QuipuExtension.START)));
        assertThat(auditOrigin(account, "subscription.canceled")).isEqualTo("operator");
        AccountLimits limits = quipu.application().accountLimits().get(account.id()).orElseThrow();
        assertThat(limits.plan()).isEqualTo("free");
        assertThat(limits.monthlyQuota()).isEqualTo(1_000);

        assertProblem(task("cancel-subscription", "email", account.email(), "immediate", "true"), 409, "conflict");
    }

    @Test
    void set_plan_withdraws_a_scheduled_cancellation() {
        Account account = newAccount();
        String id = quipu.body(task("set-plan", "email", account.email(), "plan", "pro")).path("subscriptionId").asText();
        task("cancel-subscription", "email", account.email());

        HttpResponse<String> resumed = task("set-plan", "email", account.email(), "plan", "pro");

        assertThat(quipu.body(resumed).path("changed").asBoolean()).isTrue();
        assertThat(currentSubscription(account).id()).isEqualTo(id);
        assertThat(currentSubscription(account).cancelAt()).isNull();
        assertThat(events(account, "subscription.updated")).extracting(e -> e.path("previousPlan").asText())
                .containsExactly("free", "pro");
        quipu.clock.set(NOVEMBER.plusSeconds(1));
        apply();
        assertThat(currentSubscription(account).plan()).isEqualTo("pro");
        assertThat(events(account, "subscription.canceled")).isEmpty();
    }

    @Test
    void a_paid_subscription_renews_each_lima_month_and_a_free_one_renews_in_silence() throws Exception {
        Account paid = newAccount();
        Account free = newAccount();
        String id = quipu.body(task("set-plan", "email", paid.email(), "plan", "business")).path("subscriptionId").asText();

        assertThat(quipu.body(apply()).path("renewed").asInt()).isZero();
        assertThat(events(paid, "subscription.updated")).hasSize(1);

        quipu.clock.set(NOVEMBER.plusSeconds(5));
        apply();

        assertThat(currentSubscription(paid).id()).isEqualTo(id);
        assertThat(currentSubscription(paid).renewsAt()).isEqualTo(DECEMBER);
        List<JsonNode> updates = events(paid, "subscription.updated");
        assertThat(updates).hasSize(2);
        assertThat(updates.get(1)).isEqualTo(quipu.json.readTree("""
                {"subscriptionId": "%s", "plan": "business", "previousPlan": "business", "renewsAt": "2026-12-01T05:00:00Z"}"""
                .formatted(id)));
        assertThat(quipu.application().accountLimits().get(paid.id()).orElseThrow().renewsAt()).isEqualTo(DECEMBER);
        assertThat(currentSubscription(free).renewsAt()).isEqualTo(DECEMBER);
        assertThat(events(free, "subscription.updated")).isEmpty();

        apply();
        assertThat(events(paid, "subscription.updated")).hasSize(2);

        // Two months later, two paid periods have passed: one renewal each.
        quipu.clock.set(Instant.parse("2027-01-15T12:00:00Z"));
        apply();
        assertThat(events(paid, "subscription.updated")).extracting(e -> e.path("renewsAt").asText())
                .containsExactly("2026-11-01T05:00:00Z", "2026-12-01T05:00:00Z", "2027-01-01T05:00:00Z",
                        "2027-02-01T05:00:00Z");
        assertThat(currentSubscription(free).renewsAt()).isEqualTo(Instant.parse("2027-02-01T05:00:00Z"));
    }

    @Test
    void two_instances_applying_at_once_renew_and_cancel_each_subscription_once() throws Exception {
        List<Account> renewing = new ArrayList<>();
        List<Account> canceling = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            Account a = newAccount();
            task("set-plan", "email", a.email(), "plan", i % 2 == 0 ? "starter" : "pro");
            renewing.add(a);
            Account c = newAccount();
            task("set-plan", "email", c.email(), "plan", "pro");
            task("cancel-subscription", "email", c.email());
            canceling.add(c);
        }
        quipu.clock.set(NOVEMBER.plusSeconds(1));
        URI here = quipu.adminUri("/tasks/apply-subscriptions");
        URI there = quipu.peer().adminUri("/tasks/apply-subscriptions");

        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<CompletableFuture<HttpResponse<String>>> runs = new ArrayList<>();
            for (URI uri : List.of(here, there, here, there)) {
                runs.add(CompletableFuture.supplyAsync(() -> {
                    try {
                        start.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    return quipu.send(HttpRequest.newBuilder(uri).POST(HttpRequest.BodyPublishers.noBody()),
                            quipu.adminToken());
                }, pool));
            }
            start.countDown();
            for (var run : runs) {
                assertThat(run.join().statusCode()).isEqualTo(200);
            }
        } finally {
            pool.shutdownNow();
        }

        for (Account a : renewing) {
            assertThat(events(a, "subscription.updated")).as(a.email()).hasSize(2);
            assertThat(currentSubscription(a).renewsAt()).isEqualTo(DECEMBER);
        }
        for (Account c : canceling) {
            assertThat(events(c, "subscription.canceled")).as(c.email()).hasSize(1);
            assertThat(subscriptions(c)).as(c.email()).hasSize(3);
            assertThat(currentSubscription(c).plan()).isEqualTo("free");
        }
    }

    @Test
    void grant_admin_marks_the_account_and_records_it_once() throws Exception {
        Account account = newAccount();

        HttpResponse<String> response = task("grant-admin", "email", account.email().toUpperCase());

        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        assertThat(quipu.body(response).path("changed").asBoolean()).isTrue();
        assertThat(quipu.body(response).path("accountId").asText()).isEqualTo(account.id().toString());
        assertThat(isAdmin(account)).isTrue();
        assertThat(auditOrigin(account, "admin.granted")).isEqualTo("operator");

        assertThat(quipu.body(task("grant-admin", "email", account.email())).path("changed").asBoolean()).isFalse();
        assertThat(audit(account, "admin.granted")).hasSize(1);
    }

    @Test
    void bad_requests_are_refused_with_a_clear_status_and_change_nothing() throws Exception {
        Account account = newAccount();
        String unknown = "nobody-" + UUID.randomUUID() + "@quipu.test";
        String email = account.email();

        assertProblem(task("set-plan", "email", unknown, "plan", "pro"), 404, "not_found");
        assertProblem(task("cancel-subscription", "email", unknown), 404, "not_found");
        assertProblem(task("grant-admin", "email", unknown), 404, "not_found");
        JsonNode plan = assertProblem(task("set-plan", "email", email, "plan", "platinum"), 400, "validation_error");
        assertThat(plan.path("detail").asText()).contains("platinum", "enterprise");
        assertProblem(task("set-plan", "email", email), 400, "validation_error");
        assertProblem(task("set-plan", "plan", "pro"), 400, "validation_error");
        for (String bad : List.of("-1", "abc", "1.5", "", "+5", "1e3", "99999999999999999999")) {
            assertProblem(task("set-plan", "email", email, "plan", "pro", "monthlyQuota", bad), 400, "validation_error");
        }
        assertProblem(task("set-plan", "email", email, "plan", "pro", "rateLimitRpm", "2147483648"), 400,
                "validation_error");
        JsonNode typo = assertProblem(task("set-plan", "email", email, "plan", "pro", "monthlyquota", "5"), 400,
                "validation_error");
        assertThat(typo.path("errors").get(0).path("field").asText()).isEqualTo("monthlyquota");
        assertProblem(task("set-plan", "email", email, "plan", "pro", "plan", "business"), 400, "validation_error");
        assertProblem(task("cancel-subscription", "email", email, "immediate", "yes"), 400, "validation_error");
        // Nothing to cancel on the free plan.
        assertProblem(task("cancel-subscription", "email", email), 409, "conflict");
        HttpResponse<String> get = quipu.send(HttpRequest.newBuilder(quipu.adminUri(
                "/tasks/set-plan?email=" + encode(email) + "&plan=pro")).GET(), quipu.adminToken());
        assertProblem(get, 405, "method_not_allowed");

        assertThat(subscriptions(account)).singleElement().satisfies(s -> {
            assertThat(s.plan()).isEqualTo("free");
            assertThat(s.cancelAt()).isNull();
        });
        assertThat(isAdmin(account)).isFalse();
        assertThat(count("select count(*) from events where account_id = ?", account.id())).isZero();
        assertThat(count("select count(*) from audit_log where account_id = ?", account.id())).isZero();
    }

    @Test
    void set_plan_gives_an_account_without_a_current_subscription_one() throws Exception {
        Account account = newAccount();
        update("update subscriptions set ended_at = started_at where account_id = ?", account.id());

        HttpResponse<String> response = task("set-plan", "email", account.email(), "plan", "starter");

        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        assertThat(currentSubscription(account).plan()).isEqualTo("starter");
        assertThat(events(account, "subscription.updated")).singleElement()
                .extracting(e -> e.path("previousPlan").asText()).isEqualTo("free");
    }

    @Test
    void a_deleted_account_is_unknown_to_the_tasks_and_its_subscription_is_left_alone() {
        Account account = newAccount();
        task("set-plan", "email", account.email(), "plan", "pro");
        update("update accounts set deleted_at = started_at from subscriptions s"
                + " where s.account_id = accounts.id and s.ended_at is null and accounts.id = ?", account.id());

        assertProblem(task("set-plan", "email", account.email(), "plan", "business"), 404, "not_found");
        assertProblem(task("cancel-subscription", "email", account.email()), 404, "not_found");
        assertProblem(task("grant-admin", "email", account.email()), 404, "not_found");
        quipu.clock.set(NOVEMBER.plusSeconds(1));
        apply();
        assertThat(currentSubscription(account).renewsAt()).isEqualTo(NOVEMBER);
        assertThat(events(account, "subscription.updated")).hasSize(1);
    }

    @Test
    void parameters_may_come_as_a_form_body() {
        Account account = newAccount();
        HttpResponse<String> response = quipu.send(HttpRequest.newBuilder(quipu.adminUri("/tasks/set-plan"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("email=" + encode(account.email()) + "&plan=starter")),
                quipu.adminToken());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        assertThat(currentSubscription(account).plan()).isEqualTo("starter");
    }

    // --- helpers ---

    private record Account(UUID id, String email) {
    }

    private record Row(String id, String plan, Long monthlyQuota, Integer rateLimitRpm, Instant startedAt,
                       Instant renewsAt, Instant cancelAt, Instant endedAt) {
    }

    /** A fresh account on the free plan, made as the operator's create-key makes one. */
    private Account newAccount() {
        String email = "plan-" + UUID.randomUUID() + "@quipu.test";
        KeyIssuer issuer = new KeyIssuer(quipu.clock, new EventOutbox(quipu.clock, quipu.json));
        return new Account(quipu.database.jdbi().inTransaction(h -> issuer.accountFor(h, email)), email);
    }

    /** POST /tasks/{name} on the admin connector, parameters in the query string (name, value, name, value…). */
    private HttpResponse<String> task(String name, String... parameters) {
        StringBuilder query = new StringBuilder();
        for (int i = 0; i + 1 < parameters.length; i += 2) {
            query.append(query.isEmpty() ? "?" : "&").append(encode(parameters[i])).append('=')
                    .append(encode(parameters[i + 1]));
        }
        return quipu.send(HttpRequest.newBuilder(quipu.adminUri("/tasks/" + name + query))
                .POST(HttpRequest.BodyPublishers.noBody()), quipu.adminToken());
    }

    private HttpResponse<String> apply() {
        HttpResponse<String> response = task("apply-subscriptions");
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return response;
    }

    private static String encode(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8);
    }

    private List<Row> subscriptions(Account account) {
        return query("""
                select id, plan, monthly_quota, rate_limit_rpm, started_at, renews_at, cancel_at, ended_at
                  from subscriptions where account_id = ? order by started_at, ended_at nulls last""", account.id(),
                rs -> new Row(rs.getString(1), rs.getString(2), (Long) rs.getObject(3), (Integer) rs.getObject(4),
                        instant(rs, 5), instant(rs, 6), instant(rs, 7), instant(rs, 8)));
    }

    private Row currentSubscription(Account account) {
        List<Row> current = subscriptions(account).stream().filter(r -> r.endedAt() == null).toList();
        assertThat(current).as("current subscriptions of " + account.email()).hasSize(1);
        return current.getFirst();
    }

    private List<JsonNode> events(Account account, String type) {
        return query("select data from events where account_id = ? and type = '" + type + "' order by seq",
                account.id(), rs -> json(rs.getString(1)));
    }

    private List<JsonNode> audit(Account account, String action) {
        return query("select details from audit_log where account_id = ? and action = '" + action + "' order by id",
                account.id(), rs -> json(rs.getString(1)));
    }

    private String auditOrigin(Account account, String action) {
        return query("select user_agent from audit_log where account_id = ? and action = '" + action + "'",
                account.id(), rs -> rs.getString(1)).getFirst();
    }

    private boolean isAdmin(Account account) {
        return query("select is_admin from accounts where id = ?", account.id(), rs -> rs.getBoolean(1)).getFirst();
    }

    private void update(String sql, UUID accountId) {
        try (Connection c = quipu.database.connection(); PreparedStatement u = c.prepareStatement(sql)) {
            u.setObject(1, accountId);
            assertThat(u.executeUpdate()).isEqualTo(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private long count(String sql, UUID accountId) {
        return query(sql, accountId, rs -> rs.getLong(1)).getFirst();
    }

    private <T> List<T> query(String sql, UUID accountId, TestDatabase.RowReader<T> reader) {
        return quipu.database.rows(sql, reader, accountId);
    }

    private static Instant instant(ResultSet rs, int column) throws SQLException {
        OffsetDateTime at = rs.getObject(column, OffsetDateTime.class);
        return at == null ? null : at.toInstant();
    }

    private JsonNode json(String text) {
        try {
            return quipu.json.readTree(text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
