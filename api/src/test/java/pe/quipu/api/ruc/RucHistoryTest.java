package pe.quipu.api.ruc;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.testing.QuipuExtension;

import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static pe.quipu.api.testing.ProblemAssert.assertProblem;

/**
 * {@code GET /v1/ruc/{ruc}/history} over real HTTP, on change-log rows written straight into {@code ruc_changes} as
 * the ETL writes them: the items as the contract writes them, newest first with ties broken by the log's order,
 * pages and cursors, 404 and [] and a removed RUC, every bad input, one unit per call, and the retention, shown and
 * pruned by moving the clock. The RUCs 206172500xx and 107172500xx are this class's own.
 */
class RucHistoryTest {

    /** In the registry, five changes, the two newest at the same instant. */
    private static final String BUSY = "20617250005";
    /** In the registry, no change recorded. */
    private static final String QUIET = "20617250013";
    /** Added, changed, then removed: no longer in the registry. */
    private static final String GONE = "20617250021";
    /** Never in the registry nor in the log. */
    private static final String NEVER = "20617250030";
    /** Twenty-five changes, for the default page size. */
    private static final String MANY = "20617250048";
    /** Not in the registry; its one change is past retention. */
    private static final String FORGOTTEN = "20617250056";
    /** Changes on both sides of the retention's cut-off, for the pruning. */
    private static final String AGING = "20617250064";
    private static final Instant START = QuipuExtension.START;
    private static final Duration RETENTION = Duration.ofDays(400);

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    private static String key;

    @BeforeAll
    static void seed() throws SQLException {
        key = quipu.accounts.newKey(Scope.RUC_READ);
        inRegistry(BUSY, "HISTORIA OCUPADA S.A.C.");
        inRegistry(QUIET, "HISTORIA TRANQUILA S.A.C.");
        inRegistry(MANY, "HISTORIA LARGA S.A.C.");
        for (String ruc : List.of(BUSY, QUIET, GONE, NEVER, MANY)) {
            clear(ruc);
        }
        change(BUSY, "added", null, null, 101, START.minus(30, ChronoUnit.DAYS));
        change(BUSY, "changed", """
                {"estado": {"from": "ACTIVO", "to": "SUSPENSION TEMPORAL"}}""", null, 102,
                START.minus(20, ChronoUnit.DAYS));
        change(BUSY, "padrones", null, """
                {"joined": ["agentes_retencion"], "left": []}""", 103, START.minus(10, ChronoUnit.DAYS));
        // Written in another order than the record's: served in the record's.
        change(BUSY, "changed", """
                {"direccion": {"from": "AV. LIMA NRO. 1", "to": "JR. CUSCO NRO. 2"},
                 "condicion": {"from": "HABIDO", "to": "NO HABIDO"},
                 "razonSocial": {"from": "HISTORIA S.A.C.", "to": "HISTORIA OCUPADA S.A.C."}}""", null, 104,
                START.minus(1, ChronoUnit.DAYS));
        // The same instant as the one before, recorded after it: shown before it.
        change(BUSY, "padrones", null, """
                {"joined": [], "left": ["buenos_contribuyentes"]}""", 105, START.minus(1, ChronoUnit.DAYS));

        change(GONE, "added", null, null, 200, START.minus(50, ChronoUnit.DAYS));
        change(GONE, "changed", """
                {"ciiu": {"from": "4711", "to": null}, "tipo": {"from": null, "to": "SOCIEDAD ANONIMA CERRADA"}}""",
                null, 201, START.minus(5, ChronoUnit.DAYS));
        change(GONE, "removed", null, null, 202, START.minus(2, ChronoUnit.DAYS));

        for (int i = 0; i < 25; i++) {
            change(MANY, "changed", "{\"estado\": {\"from\": \"A" + i + "\", \"to\": \"A" + (i + 1) + "\"}}", null,
                    300 + i, START.minus(25 - i, ChronoUnit.HOURS));
        }
    }

    private static HttpResponse<String> history(String ruc, String query) {
        return quipu.get("/v1/ruc/" + ruc + "/history" + query, key);
    }

    private static JsonNode ok(HttpResponse<String> response) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/json");
        assertThat(response.headers().allValues("Cache-Control")).containsExactly("no-store");
        return quipu.body(response);
    }

    /** The loadRunIds of a page's items, in order: each seeded change has its own. */
    private static List<Long> runs(JsonNode page) {
        List<Long> runs = new ArrayList<>();
        page.get("items").forEach(item -> runs.add(item.get("loadRunId").asLong()));
        return runs;
    }

    @Nested
    class Items {

        @Test
        void every_kind_as_the_contract_writes_it_newest_first() throws Exception {
            HttpResponse<String> response = history(BUSY, "");

            JsonNode expected = quipu.json.readTree("""
                    {"ruc": "20617250005", "items": [
                      {"ruc": "20617250005", "kind": "padrones", "changes": null,
                       "padrones": {"joined": [], "left": ["buenos_contribuyentes"]},
                       "loadRunId": 105, "at": "2026-10-06T15:00:00Z"},
                      {"ruc": "20617250005", "kind": "changed",
                       "changes": {"razonSocial": {"from": "HISTORIA S.A.C.", "to": "HISTORIA OCUPADA S.A.C."},
                                   "condicion": {"from": "HABIDO", "to": "NO HABIDO"},
                                   "direccion": {"from": "AV. LIMA NRO. 1", "to": "JR. CUSCO NRO. 2"}},
                       "padrones": null, "loadRunId": 104, "at": "2026-10-06T15:00:00Z"},
                      {"ruc": "20617250005", "kind": "padrones", "changes": null,
                       "padrones": {"joined": ["agentes_retencion"], "left": []},
                       "loadRunId": 103, "at": "2026-09-27T15:00:00Z"},
                      {"ruc": "20617250005", "kind": "changed",
                       "changes": {"estado": {"from": "ACTIVO", "to": "SUSPENSION TEMPORAL"}},
                       "padrones": null, "loadRunId": 102, "at": "2026-09-17T15:00:00Z"},
                      {"ruc": "20617250005", "kind": "added", "changes": null, "padrones": null,
                       "loadRunId": 101, "at": "2026-09-07T15:00:00Z"}],
                     "nextCursor": null}""");
            assertThat(ok(response)).isEqualTo(expected);
            // Members in a fixed order, absent ones written as null, and the differing fields in the record's order.
            assertThat(response.body())
                    .startsWith("{\"ruc\":\"20617250005\",\"items\":[{\"ruc\":\"20617250005\",\"kind\":\"padrones\","
                            + "\"changes\":null,\"padrones\":{\"joined\":[],\"left\":[\"buenos_contribuyentes\"]},"
                            + "\"loadRunId\":105,\"at\":\"2026-10-06T15:00:00Z\"}")
                    .contains("\"changes\":{\"razonSocial\":{\"from\":\"HISTORIA S.A.C.\",\"to\":\"HISTORIA OCUPADA"
                            + " S.A.C.\"},\"condicion\":{\"from\":\"HABIDO\",\"to\":\"NO HABIDO\"},\"direccion\":");
        }

        @Test
        void a_ruc_no_longer_in_the_registry_keeps_its_history_ending_in_removed() throws Exception {
            assertProblem(quipu.get("/v1/ruc/" + GONE, key), 404, "not_found");

            JsonNode page = ok(history(GONE, ""));

            assertThat(page).isEqualTo(quipu.json.readTree("""
                    {"ruc": "20617250021", "items": [
                      {"ruc": "20617250021", "kind": "removed", "changes": null, "padrones": null,
                       "loadRunId": 202, "at": "2026-10-05T15:00:00Z"},
                      {"ruc": "20617250021", "kind": "changed",
                       "changes": {"tipo": {"from": null, "to": "SOCIEDAD ANONIMA CERRADA"},
                                   "ciiu": {"from": "4711", "to": null}},
                       "padrones": null, "loadRunId": 201, "at": "2026-10-02T15:00:00Z"},
                      {"ruc": "20617250021", "kind": "added", "changes": null, "padrones": null,
                       "loadRunId": 200, "at": "2026-08-18T15:00:00Z"}],
                     "nextCursor": null}"""));
        }

        @Test
        void a_ruc_in_the_registry_without_changes_has_an_empty_history() {
            JsonNode page = ok(history(QUIET, ""));

            assertThat(page.get("ruc").asText()).isEqualTo(QUIET);
            assertThat(page.get("items")).isEmpty();
            assertThat(page.get("nextCursor").isNull()).isTrue();
        }

        @Test
        void a_ruc_never_seen_is_404() {
            JsonNode problem = assertProblem(history(NEVER, ""), 404, "not_found");

            assertThat(problem.get("detail").asText()).contains(NEVER);
        }

        @Test
        void a_ruc_whose_only_change_is_past_retention_is_404_before_any_pruning() throws Exception {
            clear(FORGOTTEN);
            change(FORGOTTEN, "removed", null, null, 400, START.minus(RETENTION).minusMillis(1));
            assertThat(quipu.database.texts("select kind from ruc_changes where ruc = ?", FORGOTTEN))
                    .containsExactly("removed");

            assertProblem(history(FORGOTTEN, ""), 404, "not_found");
        }
    }

    @Nested
    class Pages {

        @Test
        void pages_follow_one_another_through_the_cursor() {
            JsonNode first = ok(history(BUSY, "?limit=2"));
            assertThat(runs(first)).containsExactly(105L, 104L);
            String cursor = first.get("nextCursor").asText();
            assertThat(cursor).matches("[A-Za-z0-9_-]+");

            JsonNode second = ok(history(BUSY, "?limit=2&cursor=" + cursor));
            assertThat(runs(second)).containsExactly(103L, 102L);

            JsonNode third = ok(history(BUSY, "?limit=2&cursor=" + second.get("nextCursor").asText()));
            assertThat(runs(third)).containsExactly(101L);
            assertThat(third.get("nextCursor").isNull()).isTrue();

            // The page size may change from one page to the next; the order continues.
            JsonNode rest = ok(history(BUSY, "?cursor=" + cursor + "&limit=3"));
            assertThat(runs(rest)).containsExactly(103L, 102L, 101L);
            assertThat(rest.get("nextCursor").isNull()).isTrue();
        }

        @Test
        void changes_at_the_same_instant_are_split_by_the_log_s_order_without_loss_or_repeat() {
            JsonNode first = ok(history(BUSY, "?limit=1"));
            assertThat(runs(first)).containsExactly(105L);

            JsonNode second = ok(history(BUSY, "?limit=1&cursor=" + first.get("nextCursor").asText()));
            assertThat(runs(second)).containsExactly(104L);
            assertThat(second.get("items").get(0).get("at")).isEqualTo(first.get("items").get(0).get("at"));

            JsonNode third = ok(history(BUSY, "?limit=1&cursor=" + second.get("nextCursor").asText()));
            assertThat(runs(third)).containsExactly(103L);
        }

        @Test
        void a_page_exactly_as_long_as_the_history_is_the_last() {
            JsonNode all = ok(history(BUSY, "?limit=5"));

            assertThat(runs(all)).containsExactly(105L, 104L, 103L, 102L, 101L);
            assertThat(all.get("nextCursor").isNull()).isTrue();
        }

        @Test
        void a_cursor_whose_remaining_changes_passed_retention_ends_on_an_empty_page_not_a_404() {
            JsonNode first = ok(history(GONE, "?limit=2"));
            assertThat(runs(first)).containsExactly(202L, 201L);

            // Its "added", 50 days old at START, is past the 400 days from here; the RUC's removal is not.
            quipu.clock.set(START.plus(RETENTION).minus(49, ChronoUnit.DAYS));
            JsonNode rest = ok(history(GONE, "?limit=2&cursor=" + first.get("nextCursor").asText()));

            assertThat(rest.get("items")).isEmpty();
            assertThat(rest.get("nextCursor").isNull()).isTrue();
        }

        @Test
        void twenty_by_default_and_up_to_a_hundred() {
            JsonNode first = ok(history(MANY, ""));
            assertThat(first.get("items")).hasSize(20);
            assertThat(runs(first).getFirst()).isEqualTo(324L);
            assertThat(runs(first).getLast()).isEqualTo(305L);

            JsonNode rest = ok(history(MANY, "?cursor=" + first.get("nextCursor").asText()));
            assertThat(runs(rest)).containsExactly(304L, 303L, 302L, 301L, 300L);
            assertThat(rest.get("nextCursor").isNull()).isTrue();

            JsonNode whole = ok(history(MANY, "?limit=100"));
            assertThat(whole.get("items")).hasSize(25);
            assertThat(whole.get("nextCursor").isNull()).isTrue();
        }
    }

    @Nested
    class Refusals {

        @Test
        void a_malformed_ruc_names_the_rule_it_fails() {
            assertField(history("2061725000", ""), "ruc", "exactly 11 digits");
            assertField(history("20617250006", ""), "ruc", "check digit");
            assertField(history("30617250005", ""), "ruc", "starts with 10, 15, 16, 17 or 20");
            assertField(history("batch", ""), "ruc", "exactly 11 digits");
        }

        @ParameterizedTest
        @ValueSource(strings = {"0", "101", "-1", "1.5", "abc", "", "%201"})
        void a_limit_outside_1_to_100_is_refused(String limit) {
            assertField(history(BUSY, "?limit=" + limit), "limit", "from 1 to 100");
        }

        @Test
        void a_cursor_that_is_not_one_or_belongs_to_another_ruc_is_refused() {
            assertField(history(BUSY, "?cursor=bm90LWEtY3Vyc29y"), "cursor", "not a cursor");
            String busyCursor = ok(history(BUSY, "?limit=1")).get("nextCursor").asText();
            assertField(history(GONE, "?cursor=" + busyCursor), "cursor", "another RUC");
        }

        @Test
        void unknown_or_repeated_parameters_are_refused() {
            assertField(history(BUSY, "?limt=5"), "limt", "unknown query parameter");
            assertField(history(BUSY, "?include=padrones"), "include", "unknown query parameter");
            assertField(history(BUSY, "?limit=1&limit=2"), "limit", "given 2 times");
        }

        @Test
        void a_key_without_ruc_read_or_no_key_is_refused() {
            String ubigeosOnly = quipu.accounts.newKey(Scope.UBIGEOS_READ);

            assertProblem(quipu.get("/v1/ruc/" + BUSY + "/history", ubigeosOnly), 403, "forbidden_scope");
            assertProblem(quipu.get("/v1/ruc/" + BUSY + "/history", null), 401, "unauthorized");
        }

        private static void assertField(HttpResponse<String> response, String field, String message) {
            JsonNode problem = assertProblem(response, 400, "validation_error");
            assertThat(problem.get("errors")).hasSize(1);
            assertThat(problem.get("errors").get(0).get("field").asText()).isEqualTo(field);
            assertThat(problem.get("errors").get(0).get("message").asText()).contains(message);
        }
    }

    @Test
    void each_call_costs_one_unit_a_404_included_a_400_not() {
        String free = quipu.accounts.newFreeKey(Scope.RUC_READ);

        HttpResponse<String> found = quipu.get("/v1/ruc/" + BUSY + "/history?limit=2", free);
        assertThat(found.statusCode()).isEqualTo(200);
        assertThat(found.headers().firstValue("X-Quota-Limit")).hasValue("1000");
        assertThat(found.headers().firstValue("X-Quota-Remaining")).hasValue("999");

        HttpResponse<String> next = quipu.get("/v1/ruc/" + BUSY + "/history?limit=2&cursor="
                + quipu.body(found).get("nextCursor").asText(), free);
        assertThat(next.headers().firstValue("X-Quota-Remaining")).hasValue("998");

        HttpResponse<String> empty = quipu.get("/v1/ruc/" + QUIET + "/history", free);
        assertThat(empty.headers().firstValue("X-Quota-Remaining")).hasValue("997");

        HttpResponse<String> never = quipu.get("/v1/ruc/" + NEVER + "/history", free);
        assertThat(never.statusCode()).isEqualTo(404);
        assertThat(never.headers().firstValue("X-Quota-Remaining")).hasValue("996");

        assertThat(quipu.get("/v1/ruc/" + BUSY + "/history?limit=0", free).statusCode()).isEqualTo(400);
        assertThat(quipu.get("/v1/ruc/20617250006/history", free).statusCode()).isEqualTo(400);
        HttpResponse<String> after = quipu.get("/v1/ruc/" + BUSY + "/history", free);
        assertThat(after.headers().firstValue("X-Quota-Remaining")).hasValue("995");
    }

    @Test
    void changes_past_retention_are_hidden_at_once_and_pruned_in_batches_as_the_clock_moves() throws Exception {
        clear(AGING);
        Instant cutoff = START.minus(RETENTION);
        long atCutoff = change(AGING, "changed", "{\"estado\": {\"from\": \"A\", \"to\": \"B\"}}", null, 501, cutoff);
        long recent = change(AGING, "changed", "{\"estado\": {\"from\": \"B\", \"to\": \"C\"}}", null, 502,
                START.minus(10, ChronoUnit.DAYS));
        List<Long> old = new ArrayList<>();
        old.add(change(AGING, "added", null, null, 500, cutoff.minus(1, ChronoUnit.MICROS)));
        for (int i = 0; i < 4; i++) {
            old.add(change(AGING, "padrones", null, "{\"joined\": [], \"left\": []}", 490 + i,
                    cutoff.minus(50 + i, ChronoUnit.DAYS)));
        }

        // A change exactly at the cut-off is kept; a microsecond older is not, before any pruning.
        assertThat(runs(ok(history(AGING, "")))).containsExactly(502L, 501L);
        assertThat(ids(AGING)).containsAll(old);

        ChangeRetention retention = new ChangeRetention(quipu.database.jdbi(), quipu.clock, RETENTION, 2);
        assertThat(retention.prune()).isGreaterThanOrEqualTo(old.size());
        assertThat(ids(AGING)).containsExactlyInAnyOrder(atCutoff, recent);

        // A day on, the change that was at the cut-off is past it: hidden at once, deleted by the next pruning.
        quipu.clock.advance(Duration.ofDays(1));
        assertThat(runs(ok(history(AGING, "")))).containsExactly(502L);
        assertThat(ids(AGING)).contains(atCutoff);

        assertThat(retention.prune()).isGreaterThanOrEqualTo(1);
        assertThat(ids(AGING)).containsExactly(recent);
        assertThat(retention.prune()).isZero();
    }

    private static List<Long> ids(String ruc) {
        return quipu.database.rows("select id from ruc_changes where ruc = ?", rs -> rs.getLong(1), ruc);
    }

    /** Puts {@code ruc} in the registry (only the columns it requires), as a load would. */
    private static void inRegistry(String ruc, String razonSocial) throws SQLException {
        try (Connection c = quipu.database.connection();
             PreparedStatement insert = c.prepareStatement("""
                     insert into ruc_registry (ruc, razon_social, estado, condicion, actualizado)
                     values (?, ?, 'ACTIVO', 'HABIDO', ?) on conflict (ruc) do nothing""")) {
            insert.setString(1, ruc);
            insert.setString(2, razonSocial);
            insert.setTimestamp(3, Timestamp.from(START));
            insert.executeUpdate();
        }
    }

    private static void clear(String ruc) throws SQLException {
        try (Connection c = quipu.database.connection();
             PreparedStatement delete = c.prepareStatement("delete from ruc_changes where ruc = ?")) {
            delete.setString(1, ruc);
            delete.executeUpdate();
        }
    }

    /** One row of the change log, as the ETL writes it; returns its id. */
    private static long change(String ruc, String kind, String changes, String padrones, long loadRunId, Instant at)
            throws SQLException {
        try (Connection c = quipu.database.connection();
             PreparedStatement insert = c.prepareStatement("""
                     insert into ruc_changes (ruc, kind, changes, padrones, load_run_id, at)
                     values (?, ?, cast(? as jsonb), cast(? as jsonb), ?, ?) returning id""")) {
            insert.setString(1, ruc);
            insert.setString(2, kind);
            insert.setString(3, changes);
            insert.setString(4, padrones);
            insert.setLong(5, loadRunId);
            insert.setObject(6, at.atOffset(java.time.ZoneOffset.UTC));
            try (ResultSet id = insert.executeQuery()) {
                id.next();
                return id.getLong(1);
            }
        }
    }
}
