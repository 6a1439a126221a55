package pe.quipu.api.ruc;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.core.ruc.PadronLine;
import pe.quipu.core.ruc.PadronRecord;
import pe.quipu.core.ruc.RegistryUpsert;
import pe.quipu.core.ruc.Ruc;

import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static pe.quipu.api.testing.ProblemAssert.assertProblem;

/**
 * GET /v1/ruc?q= over the real registry: names of its own (made-up Quechua and Spanish words that no other test
 * class writes) beside the bundled sample, through the trigger that normalises every inserted name.
 */
class RucSearchTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    private static String key;
    /** The paging set: 27 names holding HATUNKAY, in RUC order of their numbers. */
    private static final int PAGED = 27;

    @BeforeAll
    static void load() {
        key = RucFixture.load(quipu).key();
        List<PadronRecord> records = new ArrayList<>();
        records.add(line(ruc("20", 1), "COMERCIAL Ñañez E.I.R.L.", "ACTIVO", "HABIDO", "150101"));
        records.add(line(ruc("10", 2), "ÑAÑEZ QORIHUAMAN JÉSSICA", "ACTIVO", "HABIDO", "080101"));
        records.add(line(ruc("20", 3), "INVERSIONES QORIWASI ANDINAS S.A.C.", "ACTIVO", "HABIDO", "150122"));
        records.add(line(ruc("20", 4), "QORIWASI TRANSPORTES S.R.L.", "BAJA DE OFICIO", "NO HABIDO", "040101"));
        records.add(line(ruc("20", 5), "PACHAKUTEQ MINERA S.A.", "ACTIVO", "HABIDO", "150101"));
        records.add(line(ruc("20", 6), "PACHAKUTEQ TEXTIL S.A.", "ACTIVO", "NO HABIDO", "150201"));
        records.add(line(ruc("20", 7), "PACHAKUTEQ AGRO S.A.", "BAJA DEFINITIVA", "HABIDO", "040101"));
        records.add(line(ruc("20", 8), "PACHAKUTEQ SERVICIOS S.A.", "ACTIVO", "HABIDO", "-"));
        records.add(line(ruc("20", 9), "CHASKA MINERA S.A.", "ACTIVO", "HABIDO", "150101"));
        records.add(line(ruc("20", 10), "CONSORCIO DE MINERA Y AGRO DEL NORTE CHASKA HERMANOS UNIDOS S.A.", "ACTIVO",
                "HABIDO", "150101"));
        records.add(line(ruc("20", 11), "CHASKA MINERO S.A.", "ACTIVO", "HABIDO", "150101"));
        for (int i = 0; i < PAGED; i++) {
            records.add(line(ruc("20", 100 + i), "HATUNKAY " + (i % 3 == 0 ? "CORPORACIÓN " : "")
                    + "YACHAY " + "ABCDEFGHIJKLMNOPQRSTUVWXYZ".charAt(i % 26) + "X S.A.C.", "ACTIVO", "HABIDO",
                    "150101"));
        }
        quipu.database.jdbi().useTransaction(h -> RegistryUpsert.upsert(h, records, QuipuExtension.START));
    }

    private static String ruc(String prefix, int i) {
        return Ruc.completing(prefix + String.format("%08d", 77_000_000 + i)).value();
    }

    private static PadronRecord line(String ruc, String name, String estado, String condicion, String ubigeo) {
        return PadronLine.parse(ruc + "|" + name + "|" + estado + "|" + condicion + "|" + ubigeo
                + "|-|-|-|-|-|-|-|-|-|-|");
    }

    private static HttpResponse<String> search(String query) {
        return quipu.get("/v1/ruc?" + query, key);
    }

    private static String q(String text) {
        return "q=" + URLEncoder.encode(text, StandardCharsets.UTF_8);
    }

    private static List<String> rucs(HttpResponse<String> response) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        List<String> rucs = new ArrayList<>();
        quipu.body(response).get("items").forEach(item -> rucs.add(item.get("ruc").asText()));
        return rucs;
    }

    private static List<String> names(HttpResponse<String> response) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        List<String> names = new ArrayList<>();
        quipu.body(response).get("items").forEach(item -> names.add(item.get("razonSocial").asText()));
        return names;
    }

    @Test
    void case_and_accents_are_ignored_and_enye_is_n() {
        for (String text : List.of("ÑAÑEZ", "ñañez", "NANEZ", "Nañez")) {
            assertThat(rucs(search(q(text)))).as(text).containsExactlyInAnyOrder(ruc("20", 1), ruc("10", 2));
        }
        assertThat(rucs(search(q("jessica qorihuaman")))).containsExactly(ruc("10", 2));
    }

    @Test
    void word_order_does_not_matter_and_punctuation_is_dropped() {
        assertThat(rucs(search(q("andinas qoriwasi inversiones")))).first().isEqualTo(ruc("20", 3));
        assertThat(rucs(search(q("qoriwasi sac")))).first().isEqualTo(ruc("20", 3));
        assertThat(rucs(search(q("Qoriwasi S.R.L.")))).first().isEqualTo(ruc("20", 4));
    }

    @Test
    void close_names_are_listed_only_when_no_name_holds_every_word() {
        // Two names hold CHASKA and MINERA: they are the answer, the closer to the query first.
        assertThat(rucs(search(q("chaska minera sa")))).containsExactly(ruc("20", 9), ruc("20", 10));
        // No name holds MINERX: the names close to its words, best first (MINERA and MINERO are as close: by RUC).
        assertThat(rucs(search(q("chaska minerx sa")))).startsWith(ruc("20", 9), ruc("20", 11))
                .contains(ruc("20", 10));
    }

    @Test
    void a_misspelling_finds_the_name() {
        assertThat(rucs(search(q("qoriwasy andinaz")))).contains(ruc("20", 3));
        assertThat(rucs(search(q("pachakutek minera")))).first().isEqualTo(ruc("20", 5));
    }

    @Test
    void each_filter_narrows_the_results() {
        assertThat(rucs(search(q("pachakuteq")))).containsExactlyInAnyOrder(ruc("20", 5), ruc("20", 6),
                ruc("20", 7), ruc("20", 8));
        assertThat(rucs(search(q("pachakuteq") + "&ubigeo=15"))).containsExactlyInAnyOrder(ruc("20", 5),
                ruc("20", 6));
        assertThat(rucs(search(q("pachakuteq") + "&ubigeo=1502"))).containsExactly(ruc("20", 6));
        assertThat(rucs(search(q("pachakuteq") + "&ubigeo=040101"))).containsExactly(ruc("20", 7));
        assertThat(rucs(search(q("pachakuteq") + "&estado=activo"))).containsExactlyInAnyOrder(ruc("20", 5),
                ruc("20", 6), ruc("20", 8));
        assertThat(rucs(search(q("pachakuteq") + "&estado=BAJA+DEFINITIVA"))).containsExactly(ruc("20", 7));
        assertThat(rucs(search(q("pachakuteq") + "&condicion=NO%20HABIDO"))).containsExactly(ruc("20", 6));
        assertThat(rucs(search(q("pachakuteq") + "&estado=ACTIVO&condicion=HABIDO&ubigeo=150101")))
                .containsExactly(ruc("20", 5));
        HttpResponse<String> none = search(q("pachakuteq") + "&ubigeo=25");
        assertThat(rucs(none)).isEmpty();
        assertThat(quipu.body(none).get("nextCursor").isNull()).isTrue();
    }

    @Test
    void every_item_is_the_lookup_answer_field_for_field() {
        HttpResponse<String> response = search(q("pachakuteq"));
        for (JsonNode item : quipu.body(response).get("items")) {
            HttpResponse<String> lookup = quipu.get("/v1/ruc/" + item.get("ruc").asText(), key);
            assertThat(item).isEqualTo(quipu.body(lookup));
        }
        JsonNode sample = quipu.body(search(q("transportes cruz del sur"))).get("items").get(0);
        assertThat(sample).isEqualTo(quipu.body(quipu.get("/v1/ruc/20100227461", key)));
        assertThat(sample.get("direccion").asText()).isEqualTo("AV. FRANCISCO BOLOGNESI NRO. 495 ZONA INDUSTRIAL");
    }

    @Test
    void the_answer_is_metered_like_a_lookup() {
        HttpResponse<String> response = search(q("pachakuteq"));
        assertThat(response.statusCode()).isEqualTo(200);
        for (String header : List.of("RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "X-Quota-Limit",
                "X-Quota-Remaining")) {
            assertThat(response.headers().firstValue(header)).as(header).isPresent();
        }
        long before = Long.parseLong(response.headers().firstValue("X-Quota-Remaining").orElseThrow());
        HttpResponse<String> next = search(q("pachakuteq"));
        assertThat(Long.parseLong(next.headers().firstValue("X-Quota-Remaining").orElseThrow()))
                .isEqualTo(before - 1);
    }

    @Test
    void pages_follow_the_cursor_without_duplicates_or_gaps() {
        List<String> whole = rucs(search(q("hatunkay yachay") + "&limit=50"));
        assertThat(whole).hasSize(PAGED);
        assertThat(quipu.body(search(q("hatunkay yachay") + "&limit=50")).get("nextCursor").isNull()).isTrue();

        List<String> paged = new ArrayList<>();
        String cursor = null;
        int pages = 0;
        do {
            HttpResponse<String> page = search(q("hatunkay yachay") + "&limit=4"
                    + (cursor == null ? "" : "&cursor=" + cursor));
            List<String> rucs = rucs(page);
            assertThat(rucs.size()).isLessThanOrEqualTo(4);
            paged.addAll(rucs);
            JsonNode next = quipu.body(page).get("nextCursor");
            cursor = next.isNull() ? null : next.asText();
            pages++;
        } while (cursor != null && pages < 20);
        assertThat(pages).isEqualTo(7);
        assertThat(paged).isEqualTo(whole);
        assertThat(new HashSet<>(paged)).hasSize(PAGED);
        // The shorter names (without CORPORACIÓN) are closer to the query: every one of them comes first.
        Set<String> longer = new HashSet<>();
        for (int i = 0; i < PAGED; i += 3) {
            longer.add(ruc("20", 100 + i));
        }
        assertThat(paged.subList(0, PAGED - longer.size())).doesNotContainAnyElementsOf(longer);
    }

    @Test
    void close_names_page_like_the_others() {
        // YACHAX is no name's word: it stands for YACHAY too, and the 27 names hold HATUNKAY and YACHAY.
        List<String> whole = rucs(search(q("hatunkay yachax") + "&limit=50"));
        assertThat(whole).hasSize(PAGED);
        assertThat(pagesOf(q("hatunkay yachax"), 4)).isEqualTo(whole);
        // QQZZKK is close to no word: no name holds both, so the names holding either are listed.
        List<String> some = rucs(search(q("pachakutek qqzzkk") + "&limit=50"));
        assertThat(some).containsExactlyInAnyOrder(ruc("20", 5), ruc("20", 6), ruc("20", 7), ruc("20", 8));
        assertThat(pagesOf(q("pachakutek qqzzkk"), 3)).isEqualTo(some);
    }

    /** Every page of a search of {@code limit} items, following the cursor; checks each page's size. */
    private static List<String> pagesOf(String query, int limit) {
        List<String> paged = new ArrayList<>();
        String cursor = null;
        int pages = 0;
        do {
            HttpResponse<String> page = search(query + "&limit=" + limit + (cursor == null ? "" : "&cursor=" + cursor));
            List<String> rucs = rucs(page);
            assertThat(rucs.size()).isLessThanOrEqualTo(limit);
            paged.addAll(rucs);
            JsonNode next = quipu.body(page).get("nextCursor");
            cursor = next.isNull() ? null : next.asText();
            pages++;
        } while (cursor != null && pages < 20);
        assertThat(new HashSet<>(paged)).hasSameSizeAs(paged);
        return paged;
    }

    @Test
    void a_cursor_with_other_parameters_or_not_made_here_is_refused() {
        String cursor = quipu.body(search(q("hatunkay yachay") + "&limit=4")).get("nextCursor").asText();
        for (String other : List.of(q("hatunkay") + "&limit=4", q("hatunkay yachay") + "&limit=5",
                q("hatunkay yachay") + "&limit=4&ubigeo=15", q("hatunkay yachay") + "&limit=4&estado=ACTIVO",
                q("hatunkay yachay") + "&limit=4&condicion=HABIDO")) {
            JsonNode problem = assertProblem(search(other + "&cursor=" + cursor), 400, "validation_error");
            assertThat(problem.get("detail").asText()).as(other).contains("other parameters");
        }
        for (String forged : List.of("abc", "%24%24%24", cursor.substring(0, cursor.length() - 4), "A".repeat(300))) {
            JsonNode problem = assertProblem(search(q("hatunkay yachay") + "&limit=4&cursor=" + forged), 400,
                    "validation_error");
            assertThat(problem.get("detail").asText()).contains("cursor");
        }
    }

    @Test
    void a_cursor_made_before_a_padron_load_is_stale() throws Exception {
        String cursor = quipu.body(search(q("hatunkay yachay") + "&limit=4")).get("nextCursor").asText();
        assertThat(search(q("hatunkay yachay") + "&limit=4&cursor=" + cursor).statusCode()).isEqualTo(200);
        try (Connection c = quipu.database.connection(); Statement s = c.createStatement()) {
            s.execute("update dataset_loads set loaded_at = loaded_at + interval '1 hour' where dataset = 'padron'");
        }
        try {
            JsonNode problem = assertProblem(search(q("hatunkay yachay") + "&limit=4&cursor=" + cursor), 400,
                    "validation_error");
            assertThat(problem.get("detail").asText()).contains("reloaded").contains("without a cursor");
            // A new search works at once.
            assertThat(rucs(search(q("hatunkay yachay") + "&limit=4"))).hasSize(4);
        } finally {
            try (Connection c = quipu.database.connection(); Statement s = c.createStatement()) {
                s.execute("update dataset_loads set loaded_at = loaded_at - interval '1 hour'"
                        + " where dataset = 'padron'");
            }
        }
    }

    @Test
    void an_operators_update_of_a_name_is_searchable_at_once() throws Exception {
        String ruc = ruc("20", 8);
        try (Connection c = quipu.database.connection();
             PreparedStatement update = c.prepareStatement(
                     "update ruc_registry set razon_social = ? where ruc = ?")) {
            update.setString(1, "WIÑAYMARKA SERVICIOS S.A.");
            update.setString(2, ruc);
            assertThat(update.executeUpdate()).isEqualTo(1);
            assertThat(rucs(search(q("winaymarka")))).containsExactly(ruc);
            // Its new word is among the names' words at once, so a misspelling of it finds it too.
            assertThat(rucs(search(q("winaymarca servicios")))).containsExactly(ruc);
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                    assertThat(names(search(q("winaymarka")))).containsExactly("WIÑAYMARKA SERVICIOS S.A."));
            assertThat(rucs(search(q("pachakuteq")))).doesNotContain(ruc);
            update.setString(1, "PACHAKUTEQ SERVICIOS S.A.");
            update.setString(2, ruc);
            update.executeUpdate();
        }
    }

    @Test
    void names_are_normalised_by_one_function_for_rows_and_queries() {
        assertThat(quipu.database.<String>rows("select quipu_search_name(?)", rs -> rs.getString(1),
                "  ÑAÑEZ  Cía. S.A.C. D'ONOFRIO & Hnos.-Perú ")).containsExactly("nanez cia sac donofrio hnos peru");
        assertThat(quipu.database.<String>rows("select nombre_busqueda from ruc_registry where ruc = ?",
                rs -> rs.getString(1), ruc("20", 1))).containsExactly("comercial nanez eirl");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "q=", "q=ab", "q=%20%20%20", "q=ab%20cd%20ef", "q=a.b.", "q=20100227461",
            "q=%2020100227461%20", "q=pachakuteq&ubigeo=1", "q=pachakuteq&ubigeo=150", "q=pachakuteq&ubigeo=1501011",
            "q=pachakuteq&ubigeo=15a1", "q=pachakuteq&limit=0", "q=pachakuteq&limit=51", "q=pachakuteq&limit=x",
            "q=pachakuteq&limit=-1", "q=pachakuteq&estado=", "q=pachakuteq&condicion=%20",
            "q=pachakuteq&q=minera", "q=pachakuteq&nombre=x", "q=pachakuteq&cursor="})
    void a_bad_query_is_400(String query) {
        assertProblem(search(query), 400, "validation_error");
    }

    @Test
    void the_400s_say_what_to_do() {
        assertThat(assertProblem(search(q("20100227461")), 400, "validation_error").get("detail").asText())
                .contains("/v1/ruc/20100227461");
        assertThat(assertProblem(search(q("x".repeat(101))), 400, "validation_error").get("detail").asText())
                .contains("3-100");
        assertThat(assertProblem(search(q("de la y")), 400, "validation_error").get("detail").asText())
                .contains("3 or more");
    }

    @Test
    void a_key_without_ruc_read_is_403() {
        String other = quipu.accounts.newKey(Scope.UBIGEOS_READ);
        assertProblem(quipu.get("/v1/ruc?" + q("pachakuteq"), other), 403, "forbidden_scope");
    }

    @Test
    void with_search_turned_off_it_answers_503_saying_so() {
        QuipuExtension.Instance off = quipu.startInstance(Map.of("search.enabled", "false"));
        try {
            JsonNode problem = assertProblem(off.get("/v1/ruc?" + q("pachakuteq"), key), 503, "service_unavailable");
            assertThat(problem.get("detail").asText()).contains("search.enabled").contains("GET /v1/ruc/{ruc}");
            // Lookups are unaffected.
            assertThat(off.get("/v1/ruc/20100227461", key).statusCode()).isEqualTo(200);
        } finally {
            off.stop();
        }
    }
}
