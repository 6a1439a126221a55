package pe.quipu.api.watchlists;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.core.ruc.Ruc;
import pe.quipu.core.watchlists.WatchedChanges;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static pe.quipu.api.testing.ProblemAssert.assertProblem;

/**
 * {@code GET /v1/watchlists/{name}/changes} (contract §11) over real HTTP, on change-log rows written straight into
 * {@code ruc_changes} as the ETL writes them: oldest first; only what was recorded while the RUC was on the list (a
 * replacement that keeps a RUC keeps its time, a RUC taken off and put back starts again); {@code since} and its
 * default; pages and cursors; every bad input. Each test has its own RUCs (206188xxxxx) and accounts.
 */
class WatchlistChangesTest {

    private static final Instant START = QuipuExtension.START;
    private static final String JSON = "application/json";

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    private static String ruc(int i) {
        return Ruc.completing(String.format("206188%04d", i)).value();
    }

    private static String rucs(String... rucs) {
        return Arrays.stream(rucs).map(r -> "\"" + r + "\"").collect(Collectors.joining(",", "{\"rucs\":[", "]}"));
    }

    private static final AtomicLong RUNS = new AtomicLong(7);

    /**
     * One row of the change log, as a load writes it: a load of its own (returned) records it at {@code at} and hands
     * it to the lists that hold its RUC then, in one transaction.
     */
    private static long change(String ruc, String estado, Instant at) {
        long run = RUNS.getAndIncrement();
        quipu.database.jdbi().useTransaction(h -> {
            h.execute("""
                    insert into ruc_changes (ruc, kind, changes, load_run_id, at)
                    values (?, 'changed', cast(? as jsonb), ?, ?)""", ruc,
                    "{\"estado\": {\"from\": \"ACTIVO\", \"to\": \"" + estado + "\"}}", run, at);
            WatchedChanges.announce(h, run, at);
        });
        return run;
    }

    private JsonNode page(String key, String pathAndQuery) {
        HttpResponse<String> response = quipu.get(pathAndQuery, key);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        assertThat(response.headers().firstValue("Cache-Control")).hasValue("no-store");
        return quipu.body(response);
    }

    /** Each item as "ruc estado at". */
    private static List<String> items(JsonNode page) {
        List<String> items = new ArrayList<>();
        page.get("items").forEach(c -> items.add(c.get("ruc").asText() + " "
                + c.get("changes").get("estado").get("to").asText() + " " + c.get("at").asText()));
        return items;
    }

    private static String item(String ruc, String estado, Instant at) {
        return ruc + " " + estado + " " + at;
    }

    @Test
    void only_changes_recorded_while_the_ruc_was_on_the_list_are_shown_oldest_first() {
        String a = ruc(1);
        String b = ruc(2);
        String c = ruc(3);
        String key = quipu.accounts.newKey(Scope.WATCHLISTS_MANAGE);
        assertThat(quipu.put("/v1/watchlists/l", key, JSON, rucs(a)).statusCode()).isEqualTo(201);
        change(a, "ANTES", START.minus(Duration.ofDays(1)));
        long uno = change(a, "UNO", START.plus(Duration.ofHours(1)));
        change(b, "B-ANTES", START.plus(Duration.ofHours(1)));
        change(a, "DOS", START.plus(Duration.ofHours(2)));
        change(c, "NUNCA", START.plus(Duration.ofHours(2)));
        quipu.clock.set(START.plus(Duration.ofMinutes(90)));
        assertThat(quipu.post("/v1/watchlists/l/rucs", key, JSON, rucs(b)).statusCode()).isEqualTo(200);
        change(b, "B-DESPUES", START.plus(Duration.ofHours(3)));

        quipu.clock.set(START.plus(Duration.ofHours(4)));
        JsonNode first = page(key, "/v1/watchlists/l/changes");
        assertThat(items(first)).containsExactly(item(a, "UNO", START.plus(Duration.ofHours(1))),
                item(a, "DOS", START.plus(Duration.ofHours(2))), item(b, "B-DESPUES", START.plus(Duration.ofHours(3))));
        assertThat(first.get("nextCursor").isNull()).isTrue();
        // The change object of a RUC's history, whole.
        assertThat(first.get("items").get(0).toString()).isEqualTo("{\"ruc\":\"" + a + "\",\"kind\":\"changed\","
                + "\"changes\":{\"estado\":{\"from\":\"ACTIVO\",\"to\":\"UNO\"}},\"padrones\":null,"
                + "\"loadRunId\":" + uno + ","
                + "\"at\":\"" + START.plus(Duration.ofHours(1)) + "\"}");

        // A replacement that keeps a RUC keeps its time on the list.
        quipu.clock.set(START.plus(Duration.ofHours(5)));
        assertThat(quipu.put("/v1/watchlists/l", key, JSON, rucs(a, b, c)).statusCode()).isEqualTo(200);
        assertThat(items(page(key, "/v1/watchlists/l/changes"))).hasSize(3);
        // A RUC taken off and put back starts again from then.
        assertThat(quipu.request("DELETE", "/v1/watchlists/l/rucs/" + b, key).statusCode()).isEqualTo(204);
        quipu.clock.set(START.plus(Duration.ofHours(6)));
        assertThat(quipu.post("/v1/watchlists/l/rucs", key, JSON, rucs(b)).statusCode()).isEqualTo(200);
        assertThat(items(page(key, "/v1/watchlists/l/changes"))).containsExactly(
                item(a, "UNO", START.plus(Duration.ofHours(1))), item(a, "DOS", START.plus(Duration.ofHours(2))));

        // Another account watching the same RUCs since later sees only its own part.
        String other = quipu.accounts.newKey(Scope.WATCHLISTS_MANAGE);
        assertThat(quipu.put("/v1/watchlists/l", other, JSON, rucs(a, b)).statusCode()).isEqualTo(201);
        change(a, "TRES", START.plus(Duration.ofHours(7)));
        quipu.clock.set(START.plus(Duration.ofHours(8)));
        assertThat(items(page(other, "/v1/watchlists/l/changes")))
                .containsExactly(item(a, "TRES", START.plus(Duration.ofHours(7))));
        assertThat(items(page(key, "/v1/watchlists/l/changes"))).hasSize(3);
    }

    /** How many rows of the list's feed (changeset 032) are changes of {@code ruc}. */
    private static long fed(String key, String list, String ruc) {
        return quipu.database.jdbi().withHandle(h -> h.createQuery("""
                        select count(*) from watchlist_changes f
                          join watchlists w on w.id = f.watchlist_id and w.account_id = :account and w.name = :list
                          join ruc_changes c on c.id = f.change_id and c.ruc = cast(:ruc as char(11))""")
                .bind("account", quipu.accounts.accountOf(key)).bind("list", list).bind("ruc", ruc)
                .mapTo(Long.class).one());
    }

    @Test
    void a_ruc_taken_off_a_list_leaves_nothing_of_it_in_the_list_s_feed() {
        String e = ruc(30);
        String f = ruc(31);
        String key = quipu.accounts.newKey(Scope.WATCHLISTS_MANAGE);
        assertThat(quipu.put("/v1/watchlists/t", key, JSON, rucs(e, f)).statusCode()).isEqualTo(201);
        assertThat(quipu.put("/v1/watchlists/u", key, JSON, rucs(e)).statusCode()).isEqualTo(201);
        change(e, "UNO", START.plus(Duration.ofHours(1)));
        change(f, "UNO", START.plus(Duration.ofHours(1)));
        change(e, "DOS", START.plus(Duration.ofHours(2)));
        assertThat(fed(key, "t", e)).isEqualTo(2);
        assertThat(fed(key, "t", f)).isEqualTo(1);
        assertThat(fed(key, "u", e)).isEqualTo(2);

        assertThat(quipu.request("DELETE", "/v1/watchlists/t/rucs/" + e, key).statusCode()).isEqualTo(204);
        assertThat(fed(key, "t", e)).isZero();
        assertThat(fed(key, "u", e)).as("another list's").isEqualTo(2);
        assertThat(quipu.put("/v1/watchlists/t", key, JSON, rucs(e)).statusCode()).isEqualTo(200);
        assertThat(fed(key, "t", f)).as("taken off by a replacement").isZero();
        assertThat(quipu.request("DELETE", "/v1/watchlists/u", key).statusCode()).isEqualTo(204);
        assertThat(fed(key, "u", e)).as("the list deleted").isZero();
    }

    @Test
    void since_bounds_the_changes_from_below_and_defaults_to_thirty_days_ago() {
        String d = ruc(10);
        String key = quipu.accounts.newKey(Scope.WATCHLISTS_MANAGE);
        assertThat(quipu.put("/v1/watchlists/s", key, JSON, rucs(d)).statusCode()).isEqualTo(201);
        change(d, "DIA-5", START.plus(Duration.ofDays(5)));
        change(d, "DIA-20", START.plus(Duration.ofDays(20)));
        change(d, "DIA-39", START.plus(Duration.ofDays(39)));
        quipu.clock.set(START.plus(Duration.ofDays(40)));

        assertThat(items(page(key, "/v1/watchlists/s/changes"))).as("the last 30 days").containsExactly(
                item(d, "DIA-20", START.plus(Duration.ofDays(20))), item(d, "DIA-39", START.plus(Duration.ofDays(39))));
        assertThat(items(page(key, "/v1/watchlists/s/changes?since=" + START))).hasSize(3);
        // The bound is inclusive, and an offset other than Z is read as the instant it names.
        assertThat(items(page(key, "/v1/watchlists/s/changes?since=" + START.plus(Duration.ofDays(20)))))
                .hasSize(2);
        assertThat(items(page(key, "/v1/watchlists/s/changes?since=2026-10-27T09:59:59-05:00"))).hasSize(2);
        assertThat(items(page(key, "/v1/watchlists/s/changes?since=2026-10-27T10:00:01-05:00"))).hasSize(1);
        assertThat(items(page(key, "/v1/watchlists/s/changes?since=" + START.plus(Duration.ofDays(400)))))
                .as("the future").isEmpty();

        // Older than the retention (400 days): refused, naming the oldest it takes.
        String oldest = quipu.clock.instant().minus(Duration.ofDays(400)).toString();
        assertThat(items(page(key, "/v1/watchlists/s/changes?since=" + oldest))).hasSize(3);
        JsonNode refused = assertProblem(quipu.get("/v1/watchlists/s/changes?since="
                + quipu.clock.instant().minus(Duration.ofDays(400)).minusSeconds(1), key), 400, "validation_error");
        assertThat(refused.get("detail").asText()).contains("retention").contains(oldest);
        for (String bad : List.of("2026-10-07", "ayer", "2026-10-07T15:00:00", "1696690800", "")) {
            assertProblem(quipu.get("/v1/watchlists/s/changes?since=" + bad, key), 400, "validation_error");
        }
    }

    @Test
    void pages_follow_the_cursor_with_or_without_since_and_a_cursor_is_its_list_s() {
        String key = quipu.accounts.newKey(Scope.WATCHLISTS_MANAGE);
        List<String> expected = new ArrayList<>();
        String[] watched = {ruc(20), ruc(21), ruc(22)};
        assertThat(quipu.put("/v1/watchlists/p", key, JSON, rucs(watched)).statusCode()).isEqualTo(201);
        assertThat(quipu.put("/v1/watchlists/q", key, JSON, rucs(ruc(23))).statusCode()).isEqualTo(201);
        for (int i = 0; i < 25; i++) {
            // Three RUCs changed by each load, at the load's one instant: the log's order breaks the tie.
            Instant at = START.plus(Duration.ofMinutes(10L * (i / 3 + 1)));
            change(watched[i % 3], "E" + i, at);
            expected.add(item(watched[i % 3], "E" + i, at));
        }
        quipu.clock.set(START.plus(Duration.ofDays(1)));
        for (String since : List.of("", "&since=" + START)) {
            List<String> seen = new ArrayList<>();
            String cursor = null;
            int pages = 0;
            do {
                JsonNode page = page(key, "/v1/watchlists/p/changes?limit=10" + since
                        + (cursor == null ? "" : "&cursor=" + cursor));
                seen.addAll(items(page));
                cursor = page.get("nextCursor").isNull() ? null : page.get("nextCursor").asText();
                pages++;
            } while (cursor != null);
            assertThat(seen).isEqualTo(expected);
            assertThat(pages).isEqualTo(3);
        }
        String cursor = page(key, "/v1/watchlists/p/changes?limit=10").get("nextCursor").asText();
        // A load after the first page adds at the end and skips nothing.
        change(watched[0], "NUEVO", START.plus(Duration.ofHours(12)));
        JsonNode rest = page(key, "/v1/watchlists/p/changes?limit=1000&cursor=" + cursor);
        assertThat(items(rest)).hasSize(16).endsWith(item(watched[0], "NUEVO", START.plus(Duration.ofHours(12))));

        assertProblem(quipu.get("/v1/watchlists/q/changes?cursor=" + cursor, key), 400, "validation_error");
        String rucsCursor = page(key, "/v1/watchlists/p/rucs?limit=1").get("nextCursor").asText();
        assertProblem(quipu.get("/v1/watchlists/p/changes?cursor=" + rucsCursor, key), 400, "validation_error");
        assertProblem(quipu.get("/v1/watchlists/p/changes?cursor=abc", key), 400, "validation_error");
        for (String limit : List.of("0", "1001", "diez")) {
            assertProblem(quipu.get("/v1/watchlists/p/changes?limit=" + limit, key), 400, "validation_error");
        }
        assertProblem(quipu.get("/v1/watchlists/p/changes?desde=" + START, key), 400, "validation_error");
        assertProblem(quipu.get("/v1/watchlists/nada/changes", key), 404, "not_found");
        assertProblem(quipu.get("/v1/watchlists/p/changes", quipu.accounts.newKey(Scope.RUC_READ)), 403,
                "forbidden_scope");
    }

    /**
     * The lists' feeds hold what the log says of their RUCs, cursor after cursor: the page equals the log's rows of
     * the list's RUCs from when each joined it, with changes before and after RUCs joined, RUCs taken off and put
     * back, and loads of several changes at one instant.
     */
    @Test
    void a_list_s_pages_are_the_log_s_changes_of_its_rucs_from_when_each_joined() {
        String key = quipu.accounts.newKey(Scope.WATCHLISTS_MANAGE);
        java.util.UUID account = quipu.accounts.accountOf(key);
        String[] watched = new String[40];
        for (int i = 0; i < watched.length; i++) {
            watched[i] = ruc(100 + i);
        }
        change(watched[0], "ANTES-DE-LA-LISTA", START.minus(Duration.ofHours(1)));
        assertThat(quipu.put("/v1/watchlists/ambas", key, JSON, rucs(Arrays.copyOf(watched, 30))).statusCode())
                .isEqualTo(201);
        // Loads every 10 minutes; the list changes between them.
        for (int i = 0; i < 90; i++) {
            Instant at = START.plus(Duration.ofMinutes(10L * (i / 7 + 1)));
            if (at.equals(START.plus(Duration.ofMinutes(50))) && i % 7 == 0) {
                quipu.clock.set(START.plus(Duration.ofMinutes(45)));
                assertThat(quipu.post("/v1/watchlists/ambas/rucs", key, JSON,
                        rucs(Arrays.copyOfRange(watched, 30, 40))).statusCode()).isEqualTo(200);
                assertThat(quipu.request("DELETE", "/v1/watchlists/ambas/rucs/" + watched[3], key).statusCode())
                        .isEqualTo(204);
            }
            if (at.equals(START.plus(Duration.ofMinutes(70))) && i % 7 == 0) {
                quipu.clock.set(START.plus(Duration.ofMinutes(65)));
                assertThat(quipu.post("/v1/watchlists/ambas/rucs", key, JSON, rucs(watched[3])).statusCode())
                        .isEqualTo(200);
            }
            change(watched[i % 40], "C" + i, at);
            change(ruc(200 + i % 5), "AJENO" + i, at);
        }
        quipu.clock.set(START.plus(Duration.ofDays(1)));

        // What the log says, by its definition: the changes of the list's RUCs from when each joined, in log order.
        List<String> log = quipu.database.jdbi().withHandle(h -> h.createQuery("""
                        select rtrim(c.ruc) || ' ' || (c.changes -> 'estado' ->> 'to') || ' ' || quipu_instant_text(c.at)
                          from ruc_changes c
                          join watchlist_rucs r on r.ruc = c.ruc and c.at >= r.added_at
                          join watchlists w on w.id = r.watchlist_id and w.account_id = :account and w.name = 'ambas'
                         order by c.at, c.id""").bind("account", account).mapTo(String.class).list());
        assertThat(log).hasSizeGreaterThan(50).noneMatch(i -> i.contains("ANTES") || i.contains("AJENO"))
                .anyMatch(i -> i.startsWith(watched[35] + " ")).anyMatch(i -> i.startsWith(watched[3] + " "));
        AccountWatchlists lists = new AccountWatchlists(quipu.database.jdbi(), quipu.clock, quipu.json,
                quipu.application().accountLimits(), Duration.ofDays(400));
        for (int limit : List.of(1, 7, 1000)) {
            List<List<String>> pages = pages(lists, account, limit);
            assertThat(pages.stream().flatMap(List::stream).toList()).as("pages of %d", limit).isEqualTo(log);
            assertThat(pages).as("pages of %d", limit).allMatch(p -> p.size() <= limit);
        }
        assertThat(items(page(key, "/v1/watchlists/ambas/changes?limit=1000&since=" + START.minus(Duration.ofDays(1)))))
                .isEqualTo(log);
    }

    private static List<List<String>> pages(AccountWatchlists lists, java.util.UUID account, int limit) {
        List<List<String>> pages = new ArrayList<>();
        String cursor = null;
        do {
            AccountWatchlists.Page<pe.quipu.api.ruc.RucChange> page = lists.changes(account, "ambas",
                    START.minus(Duration.ofDays(1)), limit, cursor);
            pages.add(page.items().stream().map(c -> item(c.ruc(), c.changes().get("estado").to(), c.at())).toList());
            cursor = page.nextCursor();
        } while (cursor != null);
        return pages;
    }
}
