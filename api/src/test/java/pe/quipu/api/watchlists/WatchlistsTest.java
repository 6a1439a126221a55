package pe.quipu.api.watchlists;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.api.testing.TestAccounts;
import pe.quipu.core.ruc.Ruc;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static pe.quipu.api.testing.ProblemAssert.assertProblem;

/**
 * {@code /v1/watchlists} over real HTTP (contract §11): every call, its 400, 403 and 404 answers, the per-entry
 * rejections, the cursors, the plan caps with their all-or-nothing rule, the scope and the session, and what the
 * calls cost. Every answer is checked against the OpenAPI document by the test client. Each test has its own
 * accounts; the RUCs are 2061890xxxx, this class's own.
 */
class WatchlistsTest {

    private static final String JSON = "application/json";

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    /** The i-th RUC of this class: 2061890 and four digits, with its check digit. */
    static String ruc(int i) {
        return Ruc.completing(String.format("206189%04d", i)).value();
    }

    static String body(List<String> rucs) {
        return rucs.stream().map(r -> "\"" + r + "\"").collect(Collectors.joining(",", "{\"rucs\":[", "]}"));
    }

    static List<String> rucs(int from, int to) {
        return IntStream.range(from, to).mapToObj(WatchlistsTest::ruc).toList();
    }

    private HttpResponse<String> put(String key, String name, String body) {
        return quipu.put("/v1/watchlists/" + name, key, JSON, body);
    }

    private JsonNode ok(HttpResponse<String> response, int status) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
        assertThat(response.headers().firstValue("Cache-Control")).hasValue("no-store");
        return quipu.body(response);
    }

    @Test
    void a_put_creates_the_list_keeping_rucs_absent_from_the_registry_and_rejecting_malformed_ones() {
        String key = quipu.accounts.newKey(Scope.WATCHLISTS_MANAGE);
        String wrongDigit = ruc(1).substring(0, 10) + ((ruc(1).charAt(10) - '0' + 1) % 10);
        JsonNode created = ok(put(key, "proveedores", "{\"rucs\":[\"" + ruc(1) + "\",\"" + wrongDigit + "\","
                + "\"2010022746\",\"" + ruc(2) + "\",20100227461,null,\"" + ruc(1) + "\",\"30100227461\"]}"), 201);
        assertThat(created.get("name").asText()).isEqualTo("proveedores");
        assertThat(created.get("count").asInt()).as("duplicates count once").isEqualTo(2);
        assertThat(created.get("createdAt").asText()).isEqualTo(QuipuExtension.START.toString());
        assertThat(created.get("updatedAt").asText()).isEqualTo(QuipuExtension.START.toString());
        JsonNode rejected = created.get("rejected");
        assertThat(rejected).hasSize(5);
        assertThat(rejected.findValuesAsText("index")).containsExactly("1", "2", "4", "5", "7");
        assertThat(rejected.get(0).get("ruc").asText()).isEqualTo(wrongDigit);
        assertThat(rejected.get(0).get("detail").asText()).contains("check digit");
        assertThat(rejected.get(1).get("detail").asText()).contains("11 digits");
        assertThat(rejected.get(2).get("ruc").asText()).isEqualTo("20100227461");
        assertThat(rejected.get(2).get("detail").asText()).contains("string");
        assertThat(rejected.get(3).get("ruc").isNull()).isTrue();
        assertThat(rejected.get(4).get("detail").asText()).contains("starts with");

        JsonNode one = ok(quipu.get("/v1/watchlists/proveedores", key), 200);
        assertThat(one.toString()).isEqualTo("{\"name\":\"proveedores\",\"count\":2,\"createdAt\":\""
                + QuipuExtension.START + "\",\"updatedAt\":\"" + QuipuExtension.START + "\"}");
        assertThat(ok(quipu.get("/v1/watchlists/proveedores/rucs", key), 200).toString())
                .isEqualTo("{\"items\":[\"" + ruc(1) + "\",\"" + ruc(2) + "\"],\"nextCursor\":null}");
    }

    @Test
    void a_second_put_replaces_the_list_and_answers_200() {
        String key = quipu.accounts.newKey(Scope.WATCHLISTS_MANAGE);
        ok(put(key, "l1", body(rucs(10, 20))), 201);
        quipu.clock.advance(Duration.ofHours(1));
        JsonNode replaced = ok(put(key, "l1", body(rucs(15, 30))), 200);
        assertThat(replaced.get("count").asInt()).isEqualTo(15);
        assertThat(replaced.get("createdAt").asText()).isEqualTo(QuipuExtension.START.toString());
        assertThat(replaced.get("updatedAt").asText()).isEqualTo(quipu.clock.instant().toString());
        assertThat(replaced.get("rejected")).isEmpty();
        assertThat(pages(key, "l1", 100)).isEqualTo(rucs(15, 30));
        JsonNode emptied = ok(put(key, "l1", "{\"rucs\":[]}"), 200);
        assertThat(emptied.get("count").asInt()).isZero();
    }

    @Test
    void lists_are_listed_by_name_and_are_the_account_s_own() {
        String key = quipu.accounts.newKey(Scope.WATCHLISTS_MANAGE);
        String other = quipu.accounts.newKey(Scope.WATCHLISTS_MANAGE);
        ok(put(key, "zeta", body(rucs(0, 3))), 201);
        ok(put(key, "alfa_1", body(rucs(0, 1))), 201);
        ok(put(other, "mia", body(rucs(0, 1))), 201);
        JsonNode items = ok(quipu.get("/v1/watchlists", key), 200).get("items");
        assertThat(items.findValuesAsText("name")).containsExactly("alfa_1", "zeta");
        assertThat(items.findValuesAsText("count")).containsExactly("1", "3");
        assertProblem(quipu.get("/v1/watchlists/mia", key), 404, "not_found");
        assertProblem(quipu.get("/v1/watchlists/mia/rucs", key), 404, "not_found");
        assertProblem(quipu.request("DELETE", "/v1/watchlists/mia", key), 404, "not_found");
        assertThat(ok(quipu.get("/v1/watchlists", quipu.accounts.newKey(Scope.WATCHLISTS_MANAGE)), 200)
                .get("items")).isEmpty();
    }

    @Test
    void rucs_are_paged_in_ruc_order_with_a_cursor_bound_to_its_list() {
        String key = quipu.accounts.newKey(Scope.WATCHLISTS_MANAGE);
        List<String> all = new ArrayList<>(rucs(100, 350));
        List<String> shuffled = new ArrayList<>(all);
        java.util.Collections.shuffle(shuffled, new java.util.Random(7));
        ok(put(key, "grande", body(shuffled)), 201);
        ok(put(key, "chica", body(rucs(0, 2))), 201);
        assertThat(pages(key, "grande", 100)).isEqualTo(all);
        assertThat(pages(key, "grande", 1000)).isEqualTo(all);
        JsonNode first = ok(quipu.get("/v1/watchlists/grande/rucs", key), 200);
        assertThat(first.get("items")).hasSize(100);
        String cursor = first.get("nextCursor").asText();
        assertProblem(quipu.get("/v1/watchlists/chica/rucs?cursor=" + cursor, key), 400, "validation_error");
        assertProblem(quipu.get("/v1/watchlists/grande/rucs?cursor=bm90LWEtY3Vyc29y", key), 400,
                "validation_error");
        for (String limit : List.of("0", "1001", "-1", "x")) {
            assertProblem(quipu.get("/v1/watchlists/grande/rucs?limit=" + limit, key), 400, "validation_error");
        }
        assertProblem(quipu.get("/v1/watchlists/grande/rucs?page=2", key), 400, "validation_error");
    }

    /** Every RUC of a list, page after page. */
    private List<String> pages(String key, String name, int limit) {
        List<String> seen = new ArrayList<>();
        String cursor = null;
        do {
            JsonNode page = ok(quipu.get("/v1/watchlists/" + name + "/rucs?limit=" + limit
                    + (cursor == null ? "" : "&cursor=" + cursor), key), 200);
            page.get("items").forEach(r -> seen.add(r.asText()));
            cursor = page.get("nextCursor").isNull() ? null : page.get("nextCursor").asText();
        } while (cursor != null);
        return seen;
    }

    @Test
    void a_post_adds_up_to_a_thousand_rucs_to_an_existing_list() {
        String key = quipu.accounts.newKey(Scope.WATCHLISTS_MANAGE);
        assertProblem(quipu.post("/v1/watchlists/nueva/rucs", key, JSON, body(rucs(0, 2))), 404, "not_found");
        assertProblem(quipu.get("/v1/watchlists/nueva", key), 404, "not_found");
        ok(put(key, "nueva", body(rucs(0, 2))), 201);
        quipu.clock.advance(Duration.ofMinutes(5));
        JsonNode added = ok(quipu.post("/v1/watchlists/nueva/rucs", key, JSON,
                "{\"rucs\":[\"" + ruc(1) + "\",\"" + ruc(2) + "\",\"123\",\"" + ruc(2) + "\"]}"), 200);
        assertThat(added.get("count").asInt()).isEqualTo(3);
        assertThat(added.get("updatedAt").asText()).isEqualTo(quipu.clock.instant().toString());
        assertThat(added.get("rejected").findValuesAsText("index")).containsExactly("2");
        ok(quipu.post("/v1/watchlists/nueva/rucs", key, JSON, body(rucs(1000, 2000))), 200);
        assertProblem(quipu.post("/v1/watchlists/nueva/rucs", key, JSON, body(rucs(2000, 3001))), 400,
                "validation_error");
        assertThat(ok(quipu.get("/v1/watchlists/nueva", key), 200).get("count").asInt()).isEqualTo(1003);
    }

    @Test
    void delete_takes_a_ruc_off_and_deletes_a_list() {
        String key = quipu.accounts.newKey(Scope.WATCHLISTS_MANAGE);
        ok(put(key, "borrar", body(rucs(0, 3))), 201);
        HttpResponse<String> removed = quipu.request("DELETE", "/v1/watchlists/borrar/rucs/" + ruc(1), key);
        assertThat(removed.statusCode()).isEqualTo(204);
        assertThat(removed.body()).isEmpty();
        assertProblem(quipu.request("DELETE", "/v1/watchlists/borrar/rucs/" + ruc(1), key), 404, "not_found");
        assertProblem(quipu.request("DELETE", "/v1/watchlists/borrar/rucs/" + ruc(9), key), 404, "not_found");
        assertProblem(quipu.request("DELETE", "/v1/watchlists/borrar/rucs/2061890000", key), 400,
                "validation_error");
        assertProblem(quipu.request("DELETE", "/v1/watchlists/otra/rucs/" + ruc(0), key), 404, "not_found");
        assertThat(pages(key, "borrar", 10)).containsExactly(ruc(0), ruc(2));
        assertThat(ok(quipu.get("/v1/watchlists/borrar", key), 200).get("count").asInt()).isEqualTo(2);

        assertThat(quipu.request("DELETE", "/v1/watchlists/borrar", key).statusCode()).isEqualTo(204);
        assertProblem(quipu.get("/v1/watchlists/borrar", key), 404, "not_found");
        assertProblem(quipu.request("DELETE", "/v1/watchlists/borrar", key), 404, "not_found");
        assertThat(ok(quipu.get("/v1/watchlists", key), 200).get("items")).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"Proveedores", "con%20espacio", "punto.com", "ñandu",
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"})
    void a_name_outside_the_rule_is_400_on_every_call(String name) {
        String key = quipu.accounts.newKey(Scope.WATCHLISTS_MANAGE);
        assertProblem(put(key, name, body(rucs(0, 1))), 400, "validation_error");
        assertProblem(quipu.get("/v1/watchlists/" + name, key), 400, "validation_error");
        assertProblem(quipu.request("DELETE", "/v1/watchlists/" + name, key), 400, "validation_error");
        assertProblem(quipu.post("/v1/watchlists/" + name + "/rucs", key, JSON, body(rucs(0, 1))), 400,
                "validation_error");
        assertProblem(quipu.get("/v1/watchlists/" + name + "/rucs", key), 400, "validation_error");
        assertProblem(quipu.get("/v1/watchlists/" + name + "/changes", key), 400, "validation_error");
        assertThat(ok(quipu.get("/v1/watchlists", key), 200).get("items")).isEmpty();
    }

    @Test
    void a_64_character_name_is_a_name() {
        String key = quipu.accounts.newKey(Scope.WATCHLISTS_MANAGE);
        String name = "a-b_0".repeat(12) + "wxyz";
        assertThat(name).hasSize(64);
        ok(put(key, name, body(rucs(0, 1))), 201);
    }

    @Test
    void a_body_that_is_not_a_rucs_object_is_400_and_stores_nothing() {
        String key = quipu.accounts.newKey(Scope.WATCHLISTS_MANAGE);
        for (String bad : List.of("", "no json", "[]", "{}", "{\"rucs\":null}", "{\"rucs\":\"20100227461\"}",
                "{\"rucs\":[],\"extra\":1}", "{\"rucs\":[],\"rucs\":[]}", "{\"rucs\":[]} {}")) {
            assertProblem(put(key, "mala", bad), 400, "validation_error");
        }
        // Nothing of it is stored: RUCs of any range will do.
        List<String> tooMany = IntStream.range(0, 100_001)
                .mapToObj(i -> Ruc.completing(String.format("10%08d", i)).value()).toList();
        assertProblem(put(key, "mala", body(tooMany)), 400, "validation_error");
        assertProblem(quipu.put("/v1/watchlists/mala", key, "text/plain", body(rucs(0, 1))), 415,
                "unsupported_media_type");
        assertProblem(quipu.get("/v1/watchlists/mala", key), 404, "not_found");
        ok(put(key, "mala", "{\"rucs\":[]}"), 201);
        for (String bad : List.of("no json", "{}", "{\"rucs\":{}}")) {
            assertProblem(quipu.post("/v1/watchlists/mala/rucs", key, JSON, bad), 400, "validation_error");
        }
    }

    @Test
    void the_scope_or_the_account_holder_s_session_is_needed() {
        String noScope = quipu.accounts.newKey(Scope.RUC_READ, Scope.WEBHOOKS_MANAGE);
        assertProblem(quipu.get("/v1/watchlists", noScope), 403, "forbidden_scope");
        assertProblem(put(noScope, "x", body(rucs(0, 1))), 403, "forbidden_scope");
        assertProblem(quipu.get("/v1/watchlists", null), 401, "unauthorized");
        assertProblem(quipu.get("/v1/watchlists/x/changes", "qk_live_" + "A".repeat(40)), 401, "unauthorized");

        TestAccounts.Session session = quipu.accounts.newSession();
        ok(put(session.accessToken(), "desde-el-panel", body(rucs(0, 2))), 201);
        String key = quipu.accounts.issueKey(session.accountId(), Scope.WATCHLISTS_MANAGE);
        assertThat(ok(quipu.get("/v1/watchlists", key), 200).get("items").findValuesAsText("name"))
                .containsExactly("desde-el-panel");
    }

    @Test
    void deletion_makes_the_lists_inaccessible_at_once() {
        TestAccounts.Session session = quipu.accounts.newSession();
        String key = quipu.accounts.issueKey(session.accountId(), Scope.WATCHLISTS_MANAGE);
        ok(put(key, "antes", body(rucs(0, 2))), 201);
        // A second session's token: still unexpired after the deletion, which revokes only the one it was sent with.
        String otherToken = quipu.body(quipu.accounts.login(session.email(), session.password()))
                .get("accessToken").asText();
        assertThat(deleteAccount(quipu, session.accessToken()).statusCode()).isEqualTo(204);
        assertProblem(quipu.get("/v1/watchlists", key), 401, "unauthorized");
        assertProblem(quipu.get("/v1/watchlists/antes/rucs", key), 401, "unauthorized");
        assertProblem(quipu.get("/v1/watchlists", otherToken), 410, "gone");
        assertProblem(put(otherToken, "despues", body(rucs(0, 1))), 410, "gone");
    }

    static HttpResponse<String> deleteAccount(pe.quipu.api.testing.QuipuClient quipu, String token) {
        return quipu.send(java.net.http.HttpRequest.newBuilder(quipu.uri("/v1/me"))
                .method("DELETE", java.net.http.HttpRequest.BodyPublishers.ofString(
                        "{\"confirmation\":\"BORRAR MI CUENTA\"}"))
                .header("Content-Type", JSON), token);
    }

    @Test
    void a_list_beyond_the_plan_s_count_is_403_and_creates_nothing() {
        String key = quipu.accounts.newKeyOnPlan("free", Scope.WATCHLISTS_MANAGE);
        ok(put(key, "unica", body(rucs(0, 5))), 201);
        JsonNode refused = assertProblem(put(key, "segunda", body(rucs(0, 1))), 403, "forbidden_plan");
        assertThat(refused.get("detail").asText()).contains("free").contains("1 watchlist");
        assertProblem(quipu.get("/v1/watchlists/segunda", key), 404, "not_found");
        ok(put(key, "unica", body(rucs(0, 7))), 200);
        assertThat(quipu.request("DELETE", "/v1/watchlists/unica", key).statusCode()).isEqualTo(204);
        ok(put(key, "segunda", body(rucs(0, 1))), 201);
    }

    @Test
    void distinct_rucs_beyond_the_plan_s_cap_are_403_and_nothing_of_the_call_is_stored() {
        String key = quipu.accounts.newKeyOnPlan("free", Scope.WATCHLISTS_MANAGE);
        // A new list over the cap: not created.
        assertProblem(put(key, "l", body(rucs(0, 101))), 403, "forbidden_plan");
        assertProblem(quipu.get("/v1/watchlists/l", key), 404, "not_found");
        // Exactly the cap, malformed elements and duplicates not counted.
        List<String> hundred = new ArrayList<>(rucs(0, 100));
        hundred.add("123");
        hundred.add(ruc(5));
        assertThat(ok(put(key, "l", body(hundred)), 201).get("count").asInt()).isEqualTo(100);
        // A replacement over it: the list stays as it was, RUCs and times alike.
        quipu.clock.advance(Duration.ofMinutes(1));
        JsonNode refused = assertProblem(put(key, "l", body(rucs(50, 151))), 403, "forbidden_plan");
        assertThat(refused.get("detail").asText()).contains("100 distinct RUCs").contains("101");
        assertThat(pages(key, "l", 1000)).isEqualTo(rucs(0, 100));
        JsonNode list = ok(quipu.get("/v1/watchlists/l", key), 200);
        assertThat(list.get("updatedAt").asText()).isEqualTo(QuipuExtension.START.toString());
        // An addition over it: nothing added, not even the part that would fit.
        quipu.request("DELETE", "/v1/watchlists/l/rucs/" + ruc(0), key);
        assertProblem(quipu.post("/v1/watchlists/l/rucs", key, JSON, body(rucs(200, 202))), 403, "forbidden_plan");
        assertThat(pages(key, "l", 1000)).isEqualTo(rucs(1, 100));
        ok(quipu.post("/v1/watchlists/l/rucs", key, JSON, body(rucs(200, 201))), 200);
        // A RUC already watched costs nothing more, and a replacement within the cap is fine.
        ok(quipu.post("/v1/watchlists/l/rucs", key, JSON, body(rucs(1, 50))), 200);
        ok(put(key, "l", body(rucs(300, 400))), 200);
    }

    @Test
    void the_cap_counts_a_ruc_once_over_all_of_an_account_s_lists() {
        String key = quipu.accounts.newKeyOnPlan("starter", Scope.WATCHLISTS_MANAGE);
        ok(put(key, "a", body(rucs(0, 600))), 201);
        ok(put(key, "b", body(rucs(200, 1000))), 201); // 1,000 distinct: the cap
        assertProblem(put(key, "c", body(rucs(1000, 1001))), 403, "forbidden_plan");
        assertProblem(quipu.get("/v1/watchlists/c", key), 404, "not_found");
        ok(put(key, "c", body(rucs(0, 1000))), 201); // all already watched
        assertThat(ok(quipu.get("/v1/watchlists", key), 200).get("items").findValuesAsText("count"))
                .containsExactly("600", "800", "1000");
    }

    @Test
    void management_counts_toward_the_rate_and_costs_no_quota_and_a_changes_page_costs_one_unit() {
        String key = quipu.accounts.newKey("free", 3L, 10, Scope.WATCHLISTS_MANAGE);
        HttpResponse<String> first = put(key, "medida", body(rucs(0, 1)));
        assertThat(first.headers().firstValue("X-Quota-Remaining")).hasValue("3");
        assertThat(first.headers().firstValue("RateLimit-Remaining")).hasValue("9");
        HttpResponse<String> second = quipu.get("/v1/watchlists", key);
        assertThat(second.headers().firstValue("X-Quota-Remaining")).hasValue("3");
        assertThat(second.headers().firstValue("RateLimit-Remaining")).hasValue("8");
        for (int i = 0; i < 3; i++) {
            HttpResponse<String> page = quipu.get("/v1/watchlists/medida/changes", key);
            assertThat(page.statusCode()).isEqualTo(200);
            assertThat(page.headers().firstValue("X-Quota-Remaining")).hasValue(Integer.toString(2 - i));
        }
        // The month's quota spent: changes are refused, the lists are still managed.
        assertProblem(quipu.get("/v1/watchlists/medida/changes", key), 429, "quota_exceeded");
        ok(quipu.post("/v1/watchlists/medida/rucs", key, JSON, body(rucs(1, 2))), 200);
        ok(quipu.get("/v1/watchlists/medida/rucs", key), 200);
        // Seven requests counted in this minute (the 429 is not): three more, then the minute's rate is spent.
        for (int i = 0; i < 3; i++) {
            ok(quipu.get("/v1/watchlists", key), 200);
        }
        assertProblem(quipu.get("/v1/watchlists", key), 429, "rate_limited");
        quipu.clock.advance(Duration.ofMinutes(1));
        ok(quipu.get("/v1/watchlists", key), 200);
    }
}
