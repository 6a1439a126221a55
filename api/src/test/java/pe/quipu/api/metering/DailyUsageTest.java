package pe.quipu.api.metering;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.testing.PadronFixtures;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.api.testing.TestAccounts;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static pe.quipu.api.testing.ProblemAssert.assertProblem;

/**
 * {@code GET /v1/usage/daily}: requests and quota units per Lima day, counted in memory by the metering and stored
 * by its sync (no request writes them), summed over instances, with the clock moved across Lima midnights.
 */
class DailyUsageTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    private static final String UBIGEO = "/v1/ubigeos/150101";
    private static final String RUC = "20100227461";

    @BeforeAll
    static void load() {
        PadronFixtures.load(quipu.database, QuipuExtension.START);
    }

    private static JsonNode daily(String credentials, String query) {
        HttpResponse<String> response = quipu.get("/v1/usage/daily" + query, credentials);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return quipu.body(response);
    }

    /** Waits for the sync to have stored this many requests in the range, and answers the range. */
    private static JsonNode dailyOnceSynced(String credentials, String query, long requests) {
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50))
                .until(() -> daily(credentials, query).at("/total/requests").asLong() == requests);
        return daily(credentials, query);
    }

    /** "fecha requests units" for each day. */
    private static List<String> days(JsonNode daily) {
        List<String> days = new ArrayList<>();
        daily.get("days").forEach(d -> days.add(d.get("fecha").asText() + " " + d.get("requests").asLong() + " "
                + d.get("units").asLong()));
        return days;
    }

    private static HttpResponse<String> batch(String key, int size) {
        return quipu.post("/v1/ruc/batch", key, "application/json",
                "{\"rucs\":[" + String.join(",", Collections.nCopies(size, "\"" + RUC + "\"")) + "]}");
    }

    @Test
    void this_lima_month_so_far_by_default_every_day_listed_once_the_sync_has_stored_the_counts() {
        String key = quipu.accounts.newFreeKey(Scope.UBIGEOS_READ, Scope.RUC_READ);
        assertThat(quipu.get(UBIGEO, key).statusCode()).isEqualTo(200);
        assertThat(batch(key, 3).statusCode()).isEqualTo(200);
        // A 404 spends its unit; a 400 is a request that spends none.
        assertThat(quipu.get("/v1/ubigeos/999999", key).statusCode()).isEqualTo(404);
        assertThat(quipu.get("/v1/ruc/123", key).statusCode()).isEqualTo(400);

        JsonNode daily = dailyOnceSynced(key, "", 4);

        assertThat(daily.get("from").asText()).isEqualTo("2026-10-01");
        assertThat(daily.get("to").asText()).isEqualTo("2026-10-07");
        assertThat(daily.get("timeZone").asText()).isEqualTo("America/Lima");
        assertThat(daily.at("/total/units").asLong()).isEqualTo(5);
        assertThat(days(daily)).containsExactly("2026-10-01 0 0", "2026-10-02 0 0", "2026-10-03 0 0",
                "2026-10-04 0 0", "2026-10-05 0 0", "2026-10-06 0 0", "2026-10-07 4 5");
        // The month's units are what GET /v1/usage says was used.
        assertThat(quipu.body(quipu.get("/v1/usage", key)).at("/monthlyQuota/used").asLong()).isEqualTo(5);
    }

    @Test
    void a_429_is_not_a_request_of_the_day() {
        String key = quipu.accounts.newKey("free", 1000L, 2, Scope.UBIGEOS_READ);
        assertThat(quipu.get(UBIGEO, key).statusCode()).isEqualTo(200);
        assertThat(quipu.get(UBIGEO, key).statusCode()).isEqualTo(200);
        assertProblem(quipu.get(UBIGEO, key), 429, "rate_limited");
        // Something else is counted after the 429, so that the wait below sees all of it.
        quipu.clock.advance(Duration.ofMinutes(1));
        assertThat(quipu.get(UBIGEO, key).statusCode()).isEqualTo(200);

        JsonNode daily = dailyOnceSynced(key, "?from=2026-10-07", 3);

        assertThat(days(daily)).containsExactly("2026-10-07 3 3");
    }

    @Test
    void days_are_lima_days_they_end_at_midnight_in_lima() {
        String key = quipu.accounts.newFreeKey(Scope.UBIGEOS_READ);
        // 2026-10-31, 18:00 and 23:59:59.999 in Lima (November already in UTC for the second).
        quipu.clock.set(Instant.parse("2026-10-31T23:00:00Z"));
        assertThat(quipu.get(UBIGEO, key).statusCode()).isEqualTo(200);
        quipu.clock.set(Instant.parse("2026-11-01T04:59:59.999Z"));
        assertThat(quipu.get(UBIGEO, key).statusCode()).isEqualTo(200);
        // Midnight in Lima: 2026-11-01.
        quipu.clock.set(Instant.parse("2026-11-01T05:00:00Z"));
        assertThat(quipu.get(UBIGEO, key).statusCode()).isEqualTo(200);

        JsonNode both = dailyOnceSynced(key, "?from=2026-10-31&to=2026-11-01", 3);

        assertThat(days(both)).containsExactly("2026-10-31 2 2", "2026-11-01 1 1");
        // The default range is now November's first day alone.
        JsonNode november = daily(key, "");
        assertThat(november.get("from").asText()).isEqualTo("2026-11-01");
        assertThat(days(november)).containsExactly("2026-11-01 1 1");
    }

    @Test
    void the_range_is_checked_and_bounded() {
        String key = quipu.accounts.newFreeKey(Scope.UBIGEOS_READ);

        // `to` alone: from the first day of its month.
        JsonNode september = daily(key, "?to=2026-09-15");
        assertThat(september.get("from").asText()).isEqualTo("2026-09-01");
        assertThat(september.get("days")).hasSize(15);
        // 366 days, both ends included, is the most.
        assertThat(daily(key, "?from=2025-10-07&to=2026-10-07").get("days")).hasSize(366);

        assertThat(assertProblem(quipu.get("/v1/usage/daily?from=2025-10-06&to=2026-10-07", key), 400,
                "validation_error").at("/errors/0/field").asText()).isEqualTo("to");
        assertThat(assertProblem(quipu.get("/v1/usage/daily?from=2026-10-05&to=2026-10-04", key), 400,
                "validation_error").at("/errors/0/field").asText()).isEqualTo("from");
        // Today in Lima is 2026-10-07.
        assertThat(assertProblem(quipu.get("/v1/usage/daily?to=2026-10-08", key), 400,
                "validation_error").at("/errors/0/field").asText()).isEqualTo("to");
        assertThat(assertProblem(quipu.get("/v1/usage/daily?from=2026-10-08", key), 400,
                "validation_error").at("/errors/0/field").asText()).isEqualTo("from");
        for (String query : List.of("?from=2026-1-01", "?from=2026-02-30", "?to=07/10/2026", "?from=",
                "?from=2026-10-01&from=2026-10-02", "?desde=2026-10-01", "?from=%FF")) {
            assertProblem(quipu.get("/v1/usage/daily" + query, key), 400, "validation_error");
        }
    }

    @Test
    void a_session_and_a_key_of_the_account_see_the_same_and_nothing_else_is_let_in() {
        TestAccounts.Session session = quipu.accounts.newSession();
        String key = quipu.accounts.issueKey(session.accountId(), Scope.UBIGEOS_READ);
        assertThat(quipu.get(UBIGEO, key).statusCode()).isEqualTo(200);

        JsonNode withToken = dailyOnceSynced(session.accessToken(), "", 1);

        assertThat(daily(key, "")).isEqualTo(withToken);
        assertProblem(quipu.get("/v1/usage/daily", null), 401, "unauthorized");
        assertProblem(quipu.get("/v1/usage/daily", "not-a-token"), 401, "unauthorized");
        assertThat(quipu.get("/v1/usage/daily", key).headers().firstValue("Cache-Control")).hasValue("no-store");
    }

    @Test
    void costs_nothing_and_is_not_counted() {
        String key = quipu.accounts.newKey("free", 1000L, 2, Scope.UBIGEOS_READ);

        for (int i = 0; i < 5; i++) {
            HttpResponse<String> response = quipu.get("/v1/usage/daily", key);
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.headers().firstValue("RateLimit-Limit")).isEmpty();
            assertThat(response.headers().firstValue("X-Quota-Remaining")).isEmpty();
        }

        // The whole per-minute allowance is still there.
        assertThat(quipu.get(UBIGEO, key).headers().firstValue("RateLimit-Remaining")).hasValue("1");
        assertThat(dailyOnceSynced(key, "", 1).at("/total/units").asLong()).isEqualTo(1);
    }

    @Test
    void another_accounts_usage_is_never_shown() {
        String mine = quipu.accounts.newFreeKey(Scope.UBIGEOS_READ);
        TestAccounts.Session other = quipu.accounts.newSession();
        String theirs = quipu.accounts.issueKey(other.accountId(), Scope.UBIGEOS_READ);
        for (int i = 0; i < 3; i++) {
            assertThat(quipu.get(UBIGEO, theirs).statusCode()).isEqualTo(200);
        }
        dailyOnceSynced(theirs, "", 3);

        assertThat(daily(mine, "").at("/total/requests").asLong()).isZero();
        assertThat(daily(mine, "").get("days")).allSatisfy(d -> assertThat(d.get("requests").asLong()).isZero());
        assertThat(dailyOnceSynced(other.accessToken(), "", 3).at("/total/units").asLong()).isEqualTo(3);
    }

    @Test
    void the_counts_of_every_instance_add_up() {
        QuipuExtension.Instance peer = quipu.peer();
        String key = quipu.accounts.newKey(Scope.UBIGEOS_READ);
        for (int i = 0; i < 3; i++) {
            assertThat(quipu.get(UBIGEO, key).statusCode()).isEqualTo(200);
            assertThat(peer.get(UBIGEO, key).statusCode()).isEqualTo(200);
        }
        assertThat(peer.get("/v1/ubigeos/999999", key).statusCode()).isEqualTo(404);

        JsonNode daily = dailyOnceSynced(key, "?from=2026-10-07", 7);

        assertThat(days(daily)).containsExactly("2026-10-07 7 7");
        assertThat(peer.get("/v1/usage/daily?from=2026-10-07", key).body()).isEqualTo(daily.toString());
    }

    @Test
    void no_request_writes_its_day_the_sync_does_and_a_graceful_stop_flushes() {
        // Syncing only every 10 minutes: what reaches the database before the stop came from the stop.
        QuipuExtension.Instance instance = quipu.startInstance(Map.of("metering.syncInterval", "10m"));
        String key = quipu.accounts.newKey(Scope.UBIGEOS_READ);
        UUID account = quipu.accounts.accountOf(key);
        try {
            for (int i = 0; i < 3; i++) {
                assertThat(instance.get(UBIGEO, key).statusCode()).isEqualTo(200);
            }
            assertThat(quipu.database.texts("select count(*) from usage_days where account_id = ?", account))
                    .containsExactly("0");
            assertThat(quipu.body(instance.get("/v1/usage/daily", key)).at("/total/requests").asLong()).isZero();
        } finally {
            instance.stop();
        }

        assertThat(quipu.database.texts("select requests || ' ' || units from usage_days where account_id = ?",
                account)).containsExactly("3 3");
    }
}
