package pe.quipu.api.metering;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.testing.PadronFixtures;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.api.testing.TestAccounts;

import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static pe.quipu.api.testing.ProblemAssert.assertProblem;

/**
 * Per-minute rates and monthly quotas (interface spec, Limits; contract §2, Plans), over HTTP, with the clock
 * moved rather than waited for. Each test has its own accounts.
 */
class MeteringTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    private static final String UBIGEO = "/v1/ubigeos/150101";
    private static final String RUC = "20100227461";
    /** Valid check digit, not in the sample. */
    private static final String ABSENT_RUC = "20123456786";
    private static final String JSON = "application/json";
    /** From START (2026-10-07T15:00Z) to the next Lima month, 2026-11-01T00:00-05:00. */
    private static final long SECONDS_TO_NOVEMBER = Duration.between(QuipuExtension.START,
            Instant.parse("2026-11-01T05:00:00Z")).toSeconds();
    private static final LocalDate OCTOBER = LocalDate.parse("2026-10-01");
    private static final long BIG_QUOTA = TestAccounts.UNBOUNDED_QUOTA;
    private static final int BIG_RPM = TestAccounts.UNBOUNDED_RPM;

    @BeforeAll
    static void load() {
        PadronFixtures.load(quipu.database, QuipuExtension.START);
    }

    private static String header(HttpResponse<String> response, String name) {
        return response.headers().firstValue(name).orElse(null);
    }

    private static long number(HttpResponse<String> response, String name) {
        String value = header(response, name);
        assertThat(value).as("header %s", name).isNotNull();
        return Long.parseLong(value);
    }

    private static void assertMetered(HttpResponse<String> response, long rateLimit, long rateRemaining,
                                      long quotaLimit, long quotaRemaining) {
        assertThat(number(response, "RateLimit-Limit")).as("RateLimit-Limit").isEqualTo(rateLimit);
        assertThat(number(response, "RateLimit-Remaining")).as("RateLimit-Remaining").isEqualTo(rateRemaining);
        assertThat(number(response, "X-Quota-Limit")).as("X-Quota-Limit").isEqualTo(quotaLimit);
        assertThat(number(response, "X-Quota-Remaining")).as("X-Quota-Remaining").isEqualTo(quotaRemaining);
        // The same limits as the current draft writes them (draft-ietf-httpapi-ratelimit-headers).
        assertThat(header(response, "RateLimit-Policy")).as("RateLimit-Policy")
                .isEqualTo("\"minute\";q=" + rateLimit + ";w=60, \"month\";q=" + quotaLimit);
        assertThat(header(response, "RateLimit")).as("RateLimit").matches("\"minute\";r=" + rateRemaining + ";t="
                + number(response, "RateLimit-Reset") + ", \"month\";r=" + quotaRemaining + ";t=[1-9][0-9]*");
    }

    private static void assertNotMetered(HttpResponse<String> response) {
        for (String name : List.of("RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "X-Quota-Limit",
                "X-Quota-Remaining", "RateLimit-Policy", "RateLimit")) {
            assertThat(response.headers().firstValue(name)).as(name).isEmpty();
        }
    }

    private static HttpResponse<String> batch(String key, int size) {
        return quipu.post("/v1/ruc/batch", key, JSON,
                "{\"rucs\":[" + String.join(",", Collections.nCopies(size, "\"" + RUC + "\"")) + "]}");
    }

    private static long storedUnits(UUID account, LocalDate period) {
        return queryLong("select used from usage_counters where account_id = ? and period = ?", account, period);
    }

    private static long storedRequests(UUID account, Instant window) {
        return queryLong("select used from rate_windows where account_id = ? and window_start = ?", account,
                java.sql.Timestamp.from(window));
    }

    private static long queryLong(String sql, Object... parameters) {
        try (Connection c = quipu.database.connection(); PreparedStatement q = c.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                q.setObject(i + 1, parameters[i]);
            }
            try (ResultSet rs = q.executeQuery()) {
                return rs.next() ? rs.getLong(1) : 0;
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static List<JsonNode> thresholdEvents(UUID account) {
        List<JsonNode> events = new ArrayList<>();
        try (Connection c = quipu.database.connection(); PreparedStatement q = c.prepareStatement(
                "select data from events where type = 'usage.threshold_reached' and account_id = ? order by seq")) {
            q.setObject(1, account);
            try (ResultSet rs = q.executeQuery()) {
                while (rs.next()) {
                    events.add(quipu.json.readTree(rs.getString(1)));
                }
            }
        } catch (SQLException | java.io.IOException e) {
            throw new IllegalStateException(e);
        }
        return events;
    }

    @Nested
    class Headers {

        @Test
        void every_metered_answer_says_the_minute_and_the_month_left() {
            String key = quipu.accounts.newFreeKey(Scope.UBIGEOS_READ);

            HttpResponse<String> lookup = quipu.get(UBIGEO, key);
            HttpResponse<String> list = quipu.get("/v1/ubigeos?limit=1", key);

            assertThat(lookup.statusCode()).isEqualTo(200);
            assertMetered(lookup, 60, 59, 1000, 999);
            // The clock stands at the start of a minute: the window resets in 60 s.
            assertThat(number(lookup, "RateLimit-Reset")).isEqualTo(60);
            assertThat(list.statusCode()).isEqualTo(200);
            assertMetered(list, 60, 58, 1000, 998);
        }

        @Test
        void the_drafts_fields_say_when_the_minute_and_the_lima_month_end() {
            String key = quipu.accounts.newFreeKey(Scope.UBIGEOS_READ);
            quipu.clock.set(QuipuExtension.START.plusSeconds(19));

            HttpResponse<String> lookup = quipu.get(UBIGEO, key);

            assertThat(lookup.statusCode()).isEqualTo(200);
            assertThat(header(lookup, "RateLimit-Policy")).isEqualTo("\"minute\";q=60;w=60, \"month\";q=1000");
            assertThat(header(lookup, "RateLimit")).isEqualTo("\"minute\";r=59;t=41, \"month\";r=999;t="
                    + (SECONDS_TO_NOVEMBER - 19));
        }

        @Test
        void unmetered_endpoints_carry_no_rate_or_quota_headers() {
            String key = quipu.accounts.newFreeKey(Scope.UBIGEOS_READ);
            TestAccounts.Session session = quipu.accounts.newSession();

            assertNotMetered(quipu.get("/v1/status", null));
            assertNotMetered(quipu.get("/.well-known/jwks.json", null));
            assertNotMetered(quipu.get("/v1/usage", key));
            assertNotMetered(quipu.get("/v1/usage", session.accessToken()));
        }

        @Test
        void a_refused_key_or_scope_costs_nothing_and_is_not_metered() {
            String key = quipu.accounts.newFreeKey(Scope.UBIGEOS_READ);

            HttpResponse<String> wrongScope = quipu.get("/v1/ruc/" + RUC, key);
            HttpResponse<String> noKey = quipu.get(UBIGEO, null);
            // Another last character, whatever the key's own was.
            char last = key.charAt(key.length() - 1);
            HttpResponse<String> badKey = quipu.get(UBIGEO, key.substring(0, key.length() - 1) + (last == 'x' ? 'y' : 'x'));

            assertProblem(wrongScope, 403, "forbidden_scope");
            assertNotMetered(wrongScope);
            assertProblem(noKey, 401, "unauthorized");
            assertNotMetered(noKey);
            assertProblem(badKey, 401, "unauthorized");
            assertNotMetered(badKey);
            assertMetered(quipu.get(UBIGEO, key), 60, 59, 1000, 999);
        }
    }

    @Nested
    class PerMinuteRate {

        @Test
        void over_the_rate_is_429_rate_limited_until_the_minute_ends() {
            String key = quipu.accounts.newKey("free", null, 3, Scope.UBIGEOS_READ);
            for (int i = 0; i < 3; i++) {
                assertThat(quipu.get(UBIGEO, key).statusCode()).isEqualTo(200);
            }

            HttpResponse<String> refused = quipu.get(UBIGEO, key);

            assertProblem(refused, 429, "rate_limited");
            assertThat(header(refused, "Retry-After")).isEqualTo("60");
            assertThat(header(refused, "RateLimit-Reset")).isEqualTo("60");
            // A refused request costs no quota unit.
            assertMetered(refused, 3, 0, 1000, 997);

            quipu.clock.set(QuipuExtension.START.plusMillis(45_500));
            HttpResponse<String> later = quipu.get(UBIGEO, key);
            assertProblem(later, 429, "rate_limited");
            // 14.5 s left, rounded up.
            assertThat(header(later, "Retry-After")).isEqualTo("15");
            assertThat(header(later, "RateLimit-Reset")).isEqualTo("15");

            quipu.clock.set(QuipuExtension.START.plusSeconds(60));
            HttpResponse<String> nextMinute = quipu.get(UBIGEO, key);
            assertThat(nextMinute.statusCode()).isEqualTo(200);
            assertMetered(nextMinute, 3, 2, 1000, 996);
            assertThat(header(nextMinute, "RateLimit-Reset")).isEqualTo("60");
        }

        @Test
        void a_batch_is_one_request_for_the_rate_whatever_its_size() {
            String key = quipu.accounts.newKey("free", null, 2, Scope.RUC_READ);

            HttpResponse<String> first = batch(key, 10);
            HttpResponse<String> second = batch(key, 10);
            HttpResponse<String> third = batch(key, 1);

            assertThat(first.statusCode()).isEqualTo(200);
            assertMetered(first, 2, 1, 1000, 990);
            assertThat(second.statusCode()).isEqualTo(200);
            assertMetered(second, 2, 0, 1000, 980);
            assertProblem(third, 429, "rate_limited");
        }

        @Test
        void windows_of_past_minutes_are_deleted() throws SQLException {
            UUID account = quipu.accounts.accountOf(quipu.accounts.newFreeKey(Scope.UBIGEOS_READ));
            Instant old = QuipuExtension.START.minus(Duration.ofMinutes(5));
            try (Connection c = quipu.database.connection(); PreparedStatement insert = c.prepareStatement(
                    "insert into rate_windows (account_id, window_start, used) values (?, ?, 7)")) {
                insert.setObject(1, account);
                insert.setTimestamp(2, java.sql.Timestamp.from(old));
                insert.executeUpdate();
            }
            // The next minute begins: the sync deletes the windows that ended more than two minutes before it.
            quipu.clock.set(QuipuExtension.START.plusSeconds(60));
            await().atMost(Duration.ofSeconds(10)).until(() -> queryLong(
                    "select count(*) from rate_windows where account_id = ?", account) == 0);
        }

        @Test
        void the_rate_is_checked_before_the_quota() {
            String key = quipu.accounts.newKey("free", 1L, 1, Scope.UBIGEOS_READ);
            assertThat(quipu.get(UBIGEO, key).statusCode()).isEqualTo(200);

            HttpResponse<String> refused = quipu.get(UBIGEO, key);

            assertProblem(refused, 429, "rate_limited");
            assertThat(header(refused, "Retry-After")).isEqualTo("60");
        }

        @Test
        void answers_past_the_scope_count_toward_the_rate_even_when_they_cost_no_quota() {
            String key = quipu.accounts.newFreeKey(Scope.RUC_READ);

            HttpResponse<String> invalid = quipu.get("/v1/ruc/123", key);
            HttpResponse<String> overCap = batch(key, 11);

            assertProblem(invalid, 400, "validation_error");
            assertMetered(invalid, 60, 59, 1000, 1000);
            assertProblem(overCap, 403, "forbidden_plan");
            assertMetered(overCap, 60, 58, 1000, 1000);
        }
    }

    @Nested
    class MonthlyQuota {

        @Test
        void over_the_quota_is_429_quota_exceeded_until_the_next_lima_month() {
            String key = quipu.accounts.newKey("free", 2L, null, Scope.UBIGEOS_READ);
            assertMetered(quipu.get(UBIGEO, key), 60, 59, 2, 1);
            assertMetered(quipu.get(UBIGEO, key), 60, 58, 2, 0);

            HttpResponse<String> refused = quipu.get(UBIGEO, key);

            assertProblem(refused, 429, "quota_exceeded");
            assertThat(header(refused, "Retry-After")).isEqualTo(Long.toString(SECONDS_TO_NOVEMBER));
            // A 429 counts neither toward the quota nor toward the rate.
            assertMetered(refused, 60, 58, 2, 0);
            assertThat(number(refused, "RateLimit-Reset")).isEqualTo(60);
        }

        @Test
        void a_304_and_a_404_cost_one_unit_and_a_400_costs_none() {
            String key = quipu.accounts.newFreeKey(Scope.RUC_READ);

            HttpResponse<String> found = quipu.get("/v1/ruc/" + RUC, key);
            HttpResponse<String> notModified = quipu.get("/v1/ruc/" + RUC, key,
                    "If-None-Match", header(found, "ETag"));
            HttpResponse<String> notFound = quipu.get("/v1/ruc/" + ABSENT_RUC, key);
            HttpResponse<String> invalid = quipu.get("/v1/ruc/2010022746", key);

            assertThat(found.statusCode()).isEqualTo(200);
            assertMetered(found, 60, 59, 1000, 999);
            assertThat(notModified.statusCode()).isEqualTo(304);
            assertMetered(notModified, 60, 58, 1000, 998);
            assertProblem(notFound, 404, "not_found");
            assertMetered(notFound, 60, 57, 1000, 997);
            assertProblem(invalid, 400, "validation_error");
            assertMetered(invalid, 60, 56, 1000, 997);
        }

        @Test
        void a_batch_of_n_costs_n_units_and_needs_n_left() {
            String key = quipu.accounts.newKey("free", 12L, null, Scope.RUC_READ);

            HttpResponse<String> ten = batch(key, 10);
            HttpResponse<String> three = batch(key, 3);
            HttpResponse<String> malformed = quipu.post("/v1/ruc/batch", key, JSON, "{\"rucs\":[]}");
            HttpResponse<String> two = batch(key, 2);

            assertThat(ten.statusCode()).isEqualTo(200);
            assertMetered(ten, 60, 59, 12, 2);
            JsonNode refused = assertProblem(three, 429, "quota_exceeded");
            assertThat(refused.get("detail").asText()).contains("needs 3 units and 2 are left");
            assertThat(header(three, "Retry-After")).isEqualTo(Long.toString(SECONDS_TO_NOVEMBER));
            assertMetered(three, 60, 59, 12, 2);
            assertProblem(malformed, 400, "validation_error");
            assertMetered(malformed, 60, 58, 12, 2);
            assertThat(two.statusCode()).isEqualTo(200);
            assertMetered(two, 60, 57, 12, 0);
        }

        @Test
        void the_plan_cap_is_checked_before_any_lookup_or_unit() {
            String free = quipu.accounts.newFreeKey(Scope.RUC_READ);
            String starter = quipu.accounts.newKeyOnPlan("starter", Scope.RUC_READ);

            HttpResponse<String> overFree = batch(free, 11);
            HttpResponse<String> atFree = batch(free, 10);
            HttpResponse<String> overStarter = batch(starter, 51);
            HttpResponse<String> atStarter = batch(starter, 50);

            JsonNode problem = assertProblem(overFree, 403, "forbidden_plan");
            assertThat(problem.get("detail").asText()).contains("free").contains("10");
            assertThat(header(overFree, "Retry-After")).isNull();
            assertMetered(overFree, 60, 59, 1000, 1000);
            assertThat(atFree.statusCode()).isEqualTo(200);
            assertMetered(atFree, 60, 58, 1000, 990);
            assertProblem(overStarter, 403, "forbidden_plan");
            assertMetered(overStarter, 300, 299, 50_000, 50_000);
            assertThat(atStarter.statusCode()).isEqualTo(200);
            assertMetered(atStarter, 300, 298, 50_000, 49_950);
        }

        @Test
        void months_are_lima_months_not_utc_months() {
            String key = quipu.accounts.newKey("free", 1L, null, Scope.UBIGEOS_READ);
            // 2026-10-31 18:00 in Lima.
            quipu.clock.set(Instant.parse("2026-10-31T23:00:00Z"));
            assertThat(quipu.get(UBIGEO, key).statusCode()).isEqualTo(200);

            // November in UTC, still October 31 (19:30) in Lima: the month's quota is spent.
            quipu.clock.set(Instant.parse("2026-11-01T00:30:00Z"));
            HttpResponse<String> refused = quipu.get(UBIGEO, key);
            assertProblem(refused, 429, "quota_exceeded");
            assertThat(header(refused, "Retry-After")).isEqualTo(Long.toString(4 * 3600 + 1800));

            // Midnight in Lima.
            quipu.clock.set(Instant.parse("2026-11-01T05:00:00Z"));
            HttpResponse<String> november = quipu.get(UBIGEO, key);
            assertThat(november.statusCode()).isEqualTo(200);
            assertMetered(november, 60, 59, 1, 0);
            JsonNode usage = quipu.body(quipu.get("/v1/usage", key));
            assertThat(usage.at("/period/start").asText()).isEqualTo("2026-11-01T05:00:00Z");
            assertThat(usage.at("/period/end").asText()).isEqualTo("2026-12-01T05:00:00Z");
            assertThat(usage.at("/monthlyQuota/used").asLong()).isEqualTo(1);
        }

        @Test
        void an_instance_reads_the_months_stored_total_before_admitting_an_account() throws SQLException {
            String key = quipu.accounts.newKey("free", 3L, null, Scope.UBIGEOS_READ);
            UUID account = quipu.accounts.accountOf(key);
            // As left by an earlier run of Quipu, or another instance.
            try (Connection c = quipu.database.connection(); PreparedStatement insert = c.prepareStatement(
                    "insert into usage_counters (account_id, period, used) values (?, ?, 3)")) {
                insert.setObject(1, account);
                insert.setObject(2, OCTOBER);
                insert.executeUpdate();
            }

            HttpResponse<String> refused = quipu.get(UBIGEO, key);

            assertProblem(refused, 429, "quota_exceeded");
            assertMetered(refused, 60, 60, 3, 0);
        }
    }

    @Nested
    class Usage {

        @Test
        void answers_the_plan_the_month_and_what_is_left_to_a_session_and_to_a_key_for_free() {
            TestAccounts.Session session = quipu.accounts.newSession();
            String key = quipu.accounts.issueKey(session.accountId(), Scope.UBIGEOS_READ);
            for (int i = 0; i < 3; i++) {
                assertThat(quipu.get(UBIGEO, key).statusCode()).isEqualTo(200);
            }

            HttpResponse<String> withToken = quipu.get("/v1/usage", session.accessToken());
            HttpResponse<String> withKey = quipu.get("/v1/usage", key);

            assertThat(withToken.statusCode()).isEqualTo(200);
            assertThat(header(withToken, "Cache-Control")).isEqualTo("no-store");
            JsonNode usage = quipu.body(withToken);
            assertThat(usage.get("plan").asText()).isEqualTo("free");
            assertThat(usage.at("/period/start").asText()).isEqualTo("2026-10-01T05:00:00Z");
            assertThat(usage.at("/period/end").asText()).isEqualTo("2026-11-01T05:00:00Z");
            assertThat(usage.at("/monthlyQuota/limit").asLong()).isEqualTo(1000);
            assertThat(usage.at("/monthlyQuota/used").asLong()).isEqualTo(3);
            assertThat(usage.at("/monthlyQuota/remaining").asLong()).isEqualTo(997);
            assertThat(usage.get("rateLimitRpm").asInt()).isEqualTo(60);
            // Asking cost nothing, and a key of the account sees the same.
            assertThat(quipu.body(withKey)).isEqualTo(usage);
            assertMetered(quipu.get(UBIGEO, key), 60, 56, 1000, 996);
        }

        @Test
        void needs_a_token_or_a_key() {
            assertProblem(quipu.get("/v1/usage", null), 401, "unauthorized");
            assertProblem(quipu.get("/v1/usage", "not-a-token"), 401, "unauthorized");
        }
    }

    @Nested
    class Threshold {

        @Test
        void usage_threshold_reached_is_emitted_once_when_the_month_crosses_the_alert_percent() {
            String key = quipu.accounts.newKey("free", 20L, null, Scope.UBIGEOS_READ);
            UUID account = quipu.accounts.accountOf(key);
            for (int i = 0; i < 15; i++) {
                assertThat(quipu.get(UBIGEO, key).statusCode()).isEqualTo(200);
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> storedUnits(account, OCTOBER) == 15);
            assertThat(thresholdEvents(account)).isEmpty();

            // 16 of 20 is the default 80 %.
            assertThat(quipu.get(UBIGEO, key).statusCode()).isEqualTo(200);
            await().atMost(Duration.ofSeconds(10)).until(() -> !thresholdEvents(account).isEmpty());
            for (int i = 0; i < 4; i++) {
                assertThat(quipu.get(UBIGEO, key).statusCode()).isEqualTo(200);
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> storedUnits(account, OCTOBER) == 20);

            List<JsonNode> events = thresholdEvents(account);
            assertThat(events).hasSize(1);
            assertThat(events.getFirst().get("period").asText()).isEqualTo("2026-10");
            assertThat(events.getFirst().get("used").asLong()).isEqualTo(16);
            assertThat(events.getFirst().get("limit").asLong()).isEqualTo(20);
            assertThat(events.getFirst().get("percent").asInt()).isEqualTo(80);
            assertThat(queryLong("select count(*) from usage_counters where account_id = ? and alerted_at is not null",
                    account)).isEqualTo(1);
        }
    }

    @Nested
    class SeveralInstances {

        /** Each instance's count of live metering instances, from its admin metrics. */
        private static long instancesSeenBy(java.net.URI adminMetrics) {
            HttpResponse<String> metrics = quipu.send(java.net.http.HttpRequest.newBuilder(adminMetrics).GET(), null);
            return quipu.body(metrics).at("/gauges/pe.quipu.api.metering.UsageMeter.instances/value").asLong();
        }

        /** A second instance on the same database. */
        private static QuipuExtension.Instance peer;

        @BeforeAll
        static void startPeer() {
            peer = quipu.startInstance(Map.of());
        }

        @AfterAll
        static void stopPeer() {
            peer.stop();
        }

        private static QuipuExtension.Instance peerKnownToBoth() {
            await().atMost(Duration.ofSeconds(15)).until(() -> instancesSeenBy(quipu.adminUri("/metrics")) >= 2
                    && instancesSeenBy(peer.adminUri("/metrics")) >= 2);
            return peer;
        }

        /** Sends requests to the two instances in turn until both refuse; returns how many were admitted. */
        private static int admittedAlternately(QuipuExtension.Instance peer, String key, String refusal) {
            int admitted = 0;
            int refusedInARow = 0;
            for (int i = 0; i < 400 && refusedInARow < 4; i++) {
                HttpResponse<String> response = i % 2 == 0 ? quipu.get(UBIGEO, key) : peer.get(UBIGEO, key);
                if (response.statusCode() == 200) {
                    admitted++;
                    refusedInARow = 0;
                } else {
                    assertProblem(response, 429, refusal);
                    refusedInARow++;
                }
            }
            return admitted;
        }

        @Test
        void two_instances_share_one_per_minute_limit() {
            QuipuExtension.Instance peer = peerKnownToBoth();
            String key = quipu.accounts.newKey("free", BIG_QUOTA, 12, Scope.UBIGEOS_READ);

            int admitted = admittedAlternately(peer, key, "rate_limited");

            // Contract §2: over by at most one second's share of the limit (here under 1 request, so 1).
            assertThat(admitted).isBetween(12, 13);
            UUID account = quipu.accounts.accountOf(key);
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> storedRequests(account, QuipuExtension.START) == admitted);
        }

        @Test
        void two_instances_share_one_monthly_quota() {
            QuipuExtension.Instance peer = peerKnownToBoth();
            String key = quipu.accounts.newKey("free", 150L, BIG_RPM, Scope.UBIGEOS_READ);
            UUID account = quipu.accounts.accountOf(key);

            int admitted = admittedAlternately(peer, key, "quota_exceeded");

            // Contract §2: over by at most 1 % (here 1 unit).
            assertThat(admitted).isBetween(150, 151);
            await().atMost(Duration.ofSeconds(10)).until(() -> storedUnits(account, OCTOBER) == admitted);
            // Both instances crossed 80 % between them; one event.
            assertThat(thresholdEvents(account)).hasSize(1);
        }

        @Test
        void once_synced_the_other_instance_refuses_too() {
            String key = quipu.accounts.newKey("free", 5L, null, Scope.UBIGEOS_READ);
            UUID account = quipu.accounts.accountOf(key);
            for (int i = 0; i < 5; i++) {
                assertThat(quipu.get(UBIGEO, key).statusCode()).isEqualTo(200);
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> storedUnits(account, OCTOBER) == 5);

            HttpResponse<String> refused = peer.get(UBIGEO, key);

            assertProblem(refused, 429, "quota_exceeded");
            assertMetered(refused, 60, 55, 5, 0);
            JsonNode usage = quipu.body(peer.get("/v1/usage", key));
            assertThat(usage.at("/monthlyQuota/used").asLong()).isEqualTo(5);
        }

        private static long liveInstances() {
            return queryLong("select count(*) from metering_instances where seen_at > now() - interval '10 seconds'");
        }

        @Test
        void a_graceful_stop_flushes_what_the_instance_counted() {
            long alive = liveInstances();
            // Syncing only every 10 minutes: what reaches the database before the stop came from the stop.
            QuipuExtension.Instance instance = quipu.startInstance(Map.of("metering.syncInterval", "10m"));
            String key = quipu.accounts.newKey(Scope.UBIGEOS_READ);
            UUID account = quipu.accounts.accountOf(key);
            try {
                for (int i = 0; i < 3; i++) {
                    assertThat(instance.get(UBIGEO, key).statusCode()).isEqualTo(200);
                }
                assertThat(storedUnits(account, OCTOBER)).isZero();
                assertThat(storedRequests(account, QuipuExtension.START)).isZero();
            } finally {
                instance.stop();
            }

            assertThat(storedUnits(account, OCTOBER)).isEqualTo(3);
            assertThat(storedRequests(account, QuipuExtension.START)).isEqualTo(3);
            assertThat(liveInstances()).as("instances listed as alive").isEqualTo(alive);
        }

        @Test
        void with_metering_off_nothing_is_counted_limited_or_announced() {
            QuipuExtension.Instance instance = quipu.startInstance(Map.of("metering.enabled", "false"));
            try {
                String key = quipu.accounts.newKey("free", 2L, 2, Scope.UBIGEOS_READ, Scope.RUC_READ);
                UUID account = quipu.accounts.accountOf(key);

                List<Integer> statuses = new ArrayList<>();
                for (int i = 0; i < 5; i++) {
                    HttpResponse<String> response = instance.get(UBIGEO, key);
                    statuses.add(response.statusCode());
                    assertNotMetered(response);
                }
                HttpResponse<String> overCap = instance.post("/v1/ruc/batch", key, JSON,
                        "{\"rucs\":[" + String.join(",", Collections.nCopies(11, "\"" + RUC + "\"")) + "]}");

                assertThat(statuses).containsOnly(200);
                // The plan's batch cap is a rule of the request, not of usage: it still holds.
                assertProblem(overCap, 403, "forbidden_plan");
                assertThat(queryLong("select count(*) from usage_counters where account_id = ?", account)).isZero();
                assertThat(quipu.body(instance.get("/v1/usage", key)).at("/monthlyQuota/used").asLong()).isZero();
            } finally {
                instance.stop();
            }
        }
    }
}
