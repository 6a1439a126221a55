package pe.quipu.api.ubigeo;

import com.fasterxml.jackson.databind.JsonNode;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.http.StrictQueryString;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.core.db.QuipuJdbi;
import pe.quipu.core.ubigeo.UbigeoCsv;
import pe.quipu.core.ubigeo.UbigeoTable;

import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static pe.quipu.api.testing.ProblemAssert.assertProblem;

class UbigeoResourceTest {

    private static final String CACHE_CONTROL = "public, max-age=2592000, immutable";

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    private final String key = quipu.accounts.newKey(Scope.UBIGEOS_READ);

    @Test
    void the_bundled_catalogue_is_in_the_table_after_start() throws Exception {
        try (Connection c = quipu.database.connection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("select count(*), count(distinct left(code, 4)), "
                     + "count(distinct left(code, 2)) from ubigeos")) {
            rs.next();
            assertThat(rs.getInt(1)).isEqualTo(1_891);
            assertThat(rs.getInt(2)).isEqualTo(196);
            assertThat(rs.getInt(3)).isEqualTo(25);
        }
    }

    @Test
    void seeding_leaves_a_loaded_table_alone() {
        assertThat(seedIfEmpty(quipu.database.jdbi())).isZero();
    }

    @Test
    void instances_seeding_an_empty_table_at_once_insert_the_catalogue_once() throws Exception {
        // A scratch schema with its own empty ubigeos table, so the served catalogue is not touched.
        String schema = "seed_" + UUID.randomUUID().toString().replace("-", "");
        try (Connection c = quipu.database.connection(); Statement s = c.createStatement()) {
            s.execute("create schema " + schema);
            s.execute("create table " + schema + ".ubigeos (like public.ubigeos including all)");
        }
        try {
            Jdbi jdbi = QuipuJdbi.configure(Jdbi.create(() -> {
                Connection c = quipu.database.connection();
                try (Statement s = c.createStatement()) {
                    s.execute("set search_path to " + schema);
                }
                return c;
            }));
            List<Callable<Integer>> seeds = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                seeds.add(() -> seedIfEmpty(jdbi));
            }
            int inserted = 0;
            try (ExecutorService pool = Executors.newFixedThreadPool(4)) {
                for (Future<Integer> result : pool.invokeAll(seeds)) {
                    inserted += result.get();
                }
            }
            assertThat(inserted).isEqualTo(1_891);
            int rows = jdbi.withHandle(h -> h.createQuery("select count(*) from ubigeos").mapTo(Integer.class).one());
            assertThat(rows).isEqualTo(1_891);
        } finally {
            try (Connection c = quipu.database.connection(); Statement s = c.createStatement()) {
                s.execute("drop schema " + schema + " cascade");
            }
        }
    }

    @Test
    void default_page_is_the_first_50_in_code_order() {
        HttpResponse<String> response = quipu.get("/v1/ubigeos", key);

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().allValues("Cache-Control")).containsExactly(CACHE_CONTROL);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("application/json"));
        JsonNode body = quipu.body(response);
        List<String> codes = codes(body);
        assertThat(codes).hasSize(50).isSorted().doesNotHaveDuplicates();
        assertThat(codes.getFirst()).isEqualTo("010101");
        assertThat(body.path("nextCursor").asText()).isEqualTo(codes.get(49));
    }

    @Test
    void paging_with_limit_200_visits_the_whole_catalogue_once_in_order() {
        List<String> codes = everything("", 200);

        assertThat(codes).hasSize(1_891).doesNotHaveDuplicates().isSorted();
        assertThat(codes.getFirst()).isEqualTo("010101");
    }

    @Test
    void the_last_page_has_a_null_next_cursor_present_in_the_body() {
        JsonNode body = quipu.body(quipu.get("/v1/ubigeos?limit=200&cursor=250000", key));

        assertThat(body.has("nextCursor")).isTrue();
        assertThat(body.get("nextCursor").isNull()).isTrue();
        assertThat(codes(body)).isNotEmpty().allMatch(code -> code.startsWith("25"));
    }

    @Test
    void filter_by_departamento() {
        List<String> codes = everything("departamento=02", 100);

        assertThat(codes).isNotEmpty().allMatch(code -> code.startsWith("02")).isSorted();
        JsonNode first = quipu.body(quipu.get("/v1/ubigeos?departamento=02&limit=1", key)).path("items").get(0);
        assertThat(first.path("departamento").asText()).isEqualTo("Áncash");
        assertThat(first.path("departamentoCode").asText()).isEqualTo("02");
    }

    @Test
    void filter_by_provincia() {
        HttpResponse<String> response = quipu.get("/v1/ubigeos?provincia=1501&limit=200", key);

        assertThat(response.statusCode()).isEqualTo(200);
        JsonNode body = quipu.body(response);
        assertThat(codes(body)).hasSize(43).allMatch(code -> code.startsWith("1501"));
        assertThat(body.get("nextCursor").isNull()).isTrue();
    }

    @Test
    void q_ignores_accents_and_case() {
        List<JsonNode> ancash = everythingItems("q=ancash", 200);
        assertThat(ancash).isNotEmpty()
                .allMatch(item -> item.path("departamento").asText().equals("Áncash"));
        assertThat(ancash).hasSize(everything("departamento=02", 200).size());

        assertThat(everything("q=" + encode("ÁNCASH"), 200)).isEqualTo(everything("q=ancash", 200));
        assertThat(everything("q=" + encode("Huánuco"), 200)).isNotEmpty()
                .isEqualTo(everything("q=huanuco", 200));
        assertThat(everything("q=LIMA", 200)).contains("150101", "010605").isEqualTo(everything("q=lima", 200));
    }

    @Test
    void q_matches_district_province_or_department_names() {
        // "Asunción" (010102) is in the province Chachapoyas: found through the province name.
        assertThat(everything("q=chachapoyas", 200)).contains("010101", "010102");
        // Miraflores is a district name in several departments.
        assertThat(everything("q=miraflores", 200)).contains("150122");
    }

    @Test
    void filters_combine() {
        List<JsonNode> items = everythingItems("departamento=15&provincia=1501&q=san", 10);

        assertThat(items).isNotEmpty().allSatisfy(item -> {
            assertThat(item.path("provinciaCode").asText()).isEqualTo("1501");
            assertThat(item.path("distrito").asText().toLowerCase()).contains("san");
        });
        assertThat(items).extracting(item -> item.path("distrito").asText()).contains("San Isidro", "San Borja");
    }

    @Test
    void filters_matching_nothing_give_an_empty_last_page() {
        for (String query : List.of("q=zzzz", "departamento=99", "provincia=9999", "departamento=15&provincia=0101",
                "cursor=999999", "q=cusco&departamento=15")) {
            HttpResponse<String> response = quipu.get("/v1/ubigeos?" + query, key);
            assertThat(response.statusCode()).as(query).isEqualTo(200);
            assertThat(response.headers().firstValue("Cache-Control")).hasValue(CACHE_CONTROL);
            JsonNode body = quipu.body(response);
            assertThat(body.path("items").isArray()).as(query).isTrue();
            assertThat(body.path("items")).as(query).isEmpty();
            assertThat(body.has("nextCursor")).as(query).isTrue();
            assertThat(body.get("nextCursor").isNull()).as(query).isTrue();
        }
    }

    @Test
    void lookup_answers_one_ubigeo_with_exactly_the_spec_fields() {
        HttpResponse<String> response = quipu.get("/v1/ubigeos/150101", key);

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().allValues("Cache-Control")).containsExactly(CACHE_CONTROL);
        JsonNode body = quipu.body(response);
        List<String> fields = new ArrayList<>();
        body.fieldNames().forEachRemaining(fields::add);
        assertThat(fields).containsExactly(
                "code", "departamento", "provincia", "distrito", "departamentoCode", "provinciaCode");
        assertThat(body.path("code").asText()).isEqualTo("150101");
        assertThat(body.path("departamento").asText()).isEqualTo("Lima");
        assertThat(body.path("provincia").asText()).isEqualTo("Lima");
        assertThat(body.path("distrito").asText()).isEqualTo("Lima");
        assertThat(body.path("departamentoCode").asText()).isEqualTo("15");
        assertThat(body.path("provinciaCode").asText()).isEqualTo("1501");
    }

    @Test
    void lookup_keeps_inei_spelling_with_accents() {
        JsonNode huaraz = quipu.body(quipu.get("/v1/ubigeos/020101", key));
        assertThat(huaraz.path("departamento").asText()).isEqualTo("Áncash");
        assertThat(huaraz.path("provincia").asText()).isEqualTo("Huaraz");
        assertThat(huaraz.path("distrito").asText()).isEqualTo("Huaraz");

        JsonNode asuncion = quipu.body(quipu.get("/v1/ubigeos/010102", key));
        assertThat(asuncion.path("distrito").asText()).isEqualTo("Asunción");
        assertThat(asuncion.path("departamentoCode").asText()).isEqualTo("01");
        assertThat(asuncion.path("provinciaCode").asText()).isEqualTo("0101");

        JsonNode ninabamba = quipu.body(quipu.get("/v1/ubigeos/061306", key));
        assertThat(ninabamba.path("provincia").asText()).isEqualTo("Santa Cruz");
    }

    @Test
    void list_items_carry_the_same_fields_as_the_lookup() {
        JsonNode item = quipu.body(quipu.get("/v1/ubigeos?cursor=150100&limit=1", key)).path("items").get(0);

        assertThat(item).isEqualTo(quipu.body(quipu.get("/v1/ubigeos/150101", key)));
    }

    @Test
    void unknown_code_is_404() {
        HttpResponse<String> response = quipu.get("/v1/ubigeos/999999", key);

        JsonNode problem = assertProblem(response, 404, "not_found");
        assertThat(problem.path("detail").asText()).contains("999999");
        assertThat(response.headers().firstValue("Cache-Control")).hasValue("no-store");
    }

    @Test
    void malformed_codes_are_400() {
        for (String code : List.of("12345", "1234567", "abcdef", "15010%20")) {
            HttpResponse<String> response = quipu.get("/v1/ubigeos/" + code, key);
            JsonNode problem = assertProblem(response, 400, "validation_error");
            assertThat(problem.path("errors").get(0).path("field").asText()).as(code).isEqualTo("code");
            assertThat(response.headers().firstValue("Cache-Control")).hasValue("no-store");
        }
    }

    @Test
    void invalid_list_queries_are_400_naming_the_parameter() {
        String longQ = "a".repeat(81);
        List<List<String>> cases = List.of(
                List.of("q=a", "q"),
                List.of("q=" + longQ, "q"),
                List.of("q=", "q"),
                List.of("q=%20%20%20", "q"),
                List.of("departamento=1", "departamento"),
                List.of("departamento=123", "departamento"),
                List.of("departamento=ab", "departamento"),
                List.of("provincia=150", "provincia"),
                List.of("provincia=15011", "provincia"),
                List.of("provincia=15a1", "provincia"),
                List.of("limit=0", "limit"),
                List.of("limit=201", "limit"),
                List.of("limit=abc", "limit"),
                List.of("limit=1.5", "limit"),
                List.of("limit=-1", "limit"),
                List.of("limit=", "limit"),
                List.of("cursor=12345", "cursor"),
                List.of("cursor=abcdef", "cursor"),
                List.of("cursor=1234567", "cursor"),
                List.of("departmento=15", "departmento"),
                List.of("limit=10&limit=10", "limit"),
                List.of("q=lima&q=cusco", "q"));
        for (List<String> c : cases) {
            HttpResponse<String> response = quipu.get("/v1/ubigeos?" + c.get(0), key);
            JsonNode problem = assertProblem(response, 400, "validation_error");
            assertThat(problem.path("errors").get(0).path("field").asText()).as(c.get(0)).isEqualTo(c.get(1));
            assertThat(response.headers().firstValue("Cache-Control")).as(c.get(0)).hasValue("no-store");
        }
    }

    @Test
    void q_length_bounds_are_inclusive_and_count_characters_not_bytes() {
        assertThat(quipu.get("/v1/ubigeos?q=li", key).statusCode()).isEqualTo(200);
        assertThat(quipu.get("/v1/ubigeos?q=" + "a".repeat(80), key).statusCode()).isEqualTo(200);
        // Two characters, four UTF-8 bytes.
        assertThat(quipu.get("/v1/ubigeos?q=" + encode("áé"), key).statusCode()).isEqualTo(200);
        assertThat(quipu.get("/v1/ubigeos?limit=1", key).statusCode()).isEqualTo(200);
        assertThat(quipu.get("/v1/ubigeos?limit=200", key).statusCode()).isEqualTo(200);
    }

    @Test
    void an_unknown_parameter_is_named_in_the_detail() {
        JsonNode problem = assertProblem(quipu.get("/v1/ubigeos?page=2", key), 400, "validation_error");
        assertThat(problem.path("detail").asText()).contains("page").contains("unknown");

        assertProblem(quipu.get("/v1/ubigeos/150101?fields=code", key), 400, "validation_error");
    }

    @Test
    void broken_percent_encoding_is_400() throws Exception {
        // java.net.URI refuses to build such a request, so it is written by hand.
        for (String query : List.of("q=%zz", "q=%E2%28", "q=li%")) {
            String answer = quipu.rawGet("/v1/ubigeos?" + query, key);
            assertThat(answer).as(query).startsWith("HTTP/1.1 400 ");
            assertThat(answer).as(query).contains("application/problem+json").contains("\"validation_error\"");
        }
    }

    @Test
    void plus_and_percent_twenty_both_mean_a_space() {
        List<String> plus = everything("q=San+Isidro", 50);

        assertThat(plus).contains("150131", "090612").isEqualTo(everything("q=San%20Isidro", 50));
        assertThat(quipu.get("/v1/ubigeos?", key).statusCode()).isEqualTo(200);
        assertThat(quipu.get("/v1/ubigeos?limit=5&&", key).statusCode()).isEqualTo(200);
    }

    @Test
    void query_strings_are_decoded_strictly() {
        assertThat(StrictQueryString.parse("q=San+Isidro&q=%C3%A1&flag&=x&&"))
                .containsExactly(Map.entry("q", List.of("San Isidro", "á")), Map.entry("flag", List.of("")),
                        Map.entry("", List.of("x")));
        assertThat(StrictQueryString.parse(null)).isEmpty();
        // Plain ASCII is taken as it is; a character sent unescaped is still the character.
        assertThat(StrictQueryString.parse("fuente=sunat&desde=2026-09-01&q=Áncash"))
                .containsExactly(Map.entry("fuente", List.of("sunat")), Map.entry("desde", List.of("2026-09-01")),
                        Map.entry("q", List.of("Áncash")));
        for (String broken : List.of("q=%zz", "q=%E2%28", "q=li%", "q=%4", "%G1=x", "q=%C3")) {
            assertThatThrownBy(() -> StrictQueryString.parse(broken)).as(broken)
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void a_key_is_required() {
        assertProblem(quipu.get("/v1/ubigeos", null), 401, "unauthorized");
        assertProblem(quipu.get("/v1/ubigeos/150101", null), 401, "unauthorized");

        String unknown = "qk_live_" + "A1b2C3d4E5".repeat(4);
        assertProblem(quipu.get("/v1/ubigeos", unknown), 401, "unauthorized");
        assertProblem(quipu.get("/v1/ubigeos/150101", unknown), 401, "unauthorized");
    }

    @Test
    void a_key_without_the_ubigeos_scope_is_403() {
        String rucOnly = quipu.accounts.newKey(Scope.RUC_READ);

        assertProblem(quipu.get("/v1/ubigeos", rucOnly), 403, "forbidden_scope");
        assertProblem(quipu.get("/v1/ubigeos/150101", rucOnly), 403, "forbidden_scope");
    }

    @Test
    void authentication_is_checked_before_validation() {
        assertProblem(quipu.get("/v1/ubigeos?limit=abc", null), 401, "unauthorized");
        assertProblem(quipu.get("/v1/ubigeos/abc", quipu.accounts.newKey(Scope.RUC_READ)), 403, "forbidden_scope");
    }

    /** The first-start seeding, as the application runs it: in a transaction of its own. */
    private static int seedIfEmpty(Jdbi jdbi) {
        return jdbi.inTransaction(h -> UbigeoTable.seedIfEmpty(h, UbigeoCsv.bundled()));
    }

    private List<String> everything(String query, int limit) {
        return everythingItems(query, limit).stream().map(item -> item.path("code").asText()).toList();
    }

    /** Follows nextCursor to the end, checking every page along the way. */
    private List<JsonNode> everythingItems(String query, int limit) {
        List<JsonNode> items = new ArrayList<>();
        String cursor = null;
        for (int pages = 0; pages < 100; pages++) {
            String path = "/v1/ubigeos?limit=" + limit + (query.isEmpty() ? "" : "&" + query)
                    + (cursor == null ? "" : "&cursor=" + cursor);
            HttpResponse<String> response = quipu.get(path, key);
            assertThat(response.statusCode()).as(path).isEqualTo(200);
            JsonNode body = quipu.body(response);
            body.path("items").forEach(items::add);
            JsonNode next = body.get("nextCursor");
            assertThat(next).as("nextCursor present in %s", path).isNotNull();
            if (next.isNull()) {
                return items;
            }
            assertThat(body.path("items")).hasSize(limit);
            assertThat(next.asText()).isEqualTo(items.getLast().path("code").asText());
            cursor = next.asText();
        }
        throw new AssertionError("more than 100 pages for " + query);
    }

    private static List<String> codes(JsonNode body) {
        List<String> codes = new ArrayList<>();
        body.path("items").forEach(item -> codes.add(item.path("code").asText()));
        return codes;
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }
}
