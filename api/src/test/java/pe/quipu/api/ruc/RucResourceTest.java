package pe.quipu.api.ruc;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.testing.PadronFixtures;
import pe.quipu.api.testing.QuipuExtension;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static pe.quipu.api.ruc.RucFixture.etag;
import static pe.quipu.api.testing.ProblemAssert.assertProblem;

/**
 * {@code GET /v1/ruc/{ruc}} and {@code POST /v1/ruc/batch} over real HTTP, on the real lines of the padrón sample:
 * the record as the spec writes it, its ETag and revalidation, and every way a path or a batch body can be wrong.
 * The plan's batch cap and what a lookup costs are MeteringTest's (and RucLookupsTest's, below HTTP).
 */
class RucResourceTest {

    private static final String JSON = "application/json";
    private static final String LOOKUP_CACHE = "public, max-age=3600, must-revalidate";
    /** Valid check digit, not in the sample. */
    private static final String ABSENT = "20123456786";

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    private static RucFixture registry;

    @BeforeAll
    static void load() {
        registry = RucFixture.load(quipu);
    }

    private static HttpResponse<String> lookup(String ruc, String... headers) {
        return registry.lookup(ruc, headers);
    }

    private static HttpResponse<String> batch(String body) {
        return registry.batch(body);
    }

    private static void setEstado(String ruc, String estado) throws Exception {
        registry.setEstado(ruc, estado);
        // This instance hears of the change when it commits (NOTIFY), a few milliseconds later.
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                assertThat(quipu.body(lookup(ruc)).get("estado").asText()).isEqualTo(estado));
    }

    @Nested
    class Lookup {

        @Test
        void a_company_with_a_composed_direccion() {
            HttpResponse<String> response = lookup("20100227461");

            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.headers().firstValue("Content-Type")).hasValue(JSON);
            JsonNode body = quipu.body(response);
            assertThat(fieldNames(body)).containsExactly("ruc", "razonSocial", "estado", "condicion", "tipo",
                    "ubigeo", "direccion", "ciiu", "actualizado");
            assertThat(body.get("ruc").asText()).isEqualTo("20100227461");
            assertThat(body.get("razonSocial").asText()).isEqualTo("TRANSPORTES CRUZ DEL SUR S.A.C.");
            assertThat(body.get("estado").asText()).isEqualTo("ACTIVO");
            assertThat(body.get("condicion").asText()).isEqualTo("HABIDO");
            assertThat(body.get("tipo").isNull()).isTrue();
            assertThat(body.get("ubigeo").asText()).isEqualTo("150137");
            // CÓDIGO DE ZONA was "----": left out.
            assertThat(body.get("direccion").asText()).isEqualTo("AV. FRANCISCO BOLOGNESI NRO. 495 ZONA INDUSTRIAL");
            assertThat(body.get("ciiu").isNull()).isTrue();
            assertThat(body.get("actualizado").asText()).isEqualTo("2026-10-07T15:00:00Z");
            // Nulls are written, not omitted.
            assertThat(response.body()).contains("\"tipo\":null").contains("\"ciiu\":null");
        }

        @Test
        void manzana_and_lote_without_a_street() {
            JsonNode body = quipu.body(lookup("20600662458"));

            assertThat(body.get("ruc").asText()).isEqualTo("20600662458");
            assertThat(body.get("razonSocial").asText()).isEqualTo("A TODO GAS PERU E.I.R.L.");
            assertThat(body.get("estado").asText()).isEqualTo("ACTIVO");
            assertThat(body.get("condicion").asText()).isEqualTo("HABIDO");
            assertThat(body.get("tipo").isNull()).isTrue();
            assertThat(body.get("ubigeo").asText()).isEqualTo("150108");
            assertThat(body.get("direccion").asText()).isEqualTo("MZA. F14 LOTE. 10 URB. LAS DELICIAS DE VILLA");
            assertThat(body.get("ciiu").isNull()).isTrue();
            assertThat(body.get("actualizado").asText()).isEqualTo("2026-10-07T15:00:00Z");
        }

        @Test
        void doubled_spaces_in_the_name_are_kept() {
            JsonNode body = quipu.body(lookup("20101783805"));

            assertThat(body.get("razonSocial").asText()).isEqualTo("SONIDO Y VISION  SA");
            assertThat(body.get("estado").asText()).isEqualTo("BAJA DEFINITIVA");
            // Cut at 20 characters in the file, served as published.
            assertThat(body.get("condicion").asText()).isEqualTo("NO HALLADO SE MUDO D");
            assertThat(body.get("tipo").isNull()).isTrue();
            assertThat(body.get("ubigeo").asText()).isEqualTo("150116");
            assertThat(body.get("direccion").asText()).isEqualTo("AV. ARENALES NRO. 2649");
            assertThat(body.get("ciiu").isNull()).isTrue();
            assertThat(body.get("actualizado").asText()).isEqualTo("2026-10-07T15:00:00Z");
        }

        @Test
        void a_natural_person_in_an_asentamiento_humano() {
            JsonNode body = quipu.body(lookup("10452159428"));

            assertThat(body.get("razonSocial").asText()).isEqualTo("GARCIA CHANCO CARLOS AUGUSTO");
            assertThat(body.get("ubigeo").asText()).isEqualTo("150117");
            assertThat(body.get("direccion").asText()).isEqualTo("MZA. W LOTE. 3 A.H. VIRGEN DE FATIMA");
        }

        @Test
        void iso_8859_1_letters_arrive_as_utf_8() {
            JsonNode body = quipu.body(lookup("20330791412"));

            assertThat(body.get("direccion").asText())
                    .isEqualTo("CAL. CÉSAR LÓPEZ ROJAS NRO. 201 URB. MARANGA SÉPTIMA ETAPA");
        }

        @Test
        void caches_publicly_for_an_hour() {
            HttpResponse<String> response = lookup("20100227461");

            assertThat(response.headers().allValues("Cache-Control")).containsExactly(LOOKUP_CACHE);
        }

        @Test
        void the_etag_is_strong_quoted_and_the_hash_of_the_body_sent() throws Exception {
            HttpResponse<String> response = lookup("20100227461");

            String etag = etag(response);
            assertThat(etag).matches("\"[A-Za-z0-9_-]{22}\"");
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(response.body().getBytes(StandardCharsets.UTF_8));
            assertThat(etag).isEqualTo("\"" + Base64.getUrlEncoder().withoutPadding().encodeToString(digest)
                    .substring(0, 22) + "\"");
        }

        @Test
        void the_etag_is_stable_while_the_record_is_unchanged() {
            String first = etag(lookup("20100227461"));

            assertThat(etag(lookup("20100227461"))).isEqualTo(first);
            // A reload that changes nothing keeps it.
            PadronFixtures.load(quipu.database, QuipuExtension.START);
            assertThat(etag(lookup("20100227461"))).isEqualTo(first);
            // Another record has another tag.
            assertThat(etag(lookup("20600662458"))).isNotEqualTo(first);
        }

        @ParameterizedTest(name = "If-None-Match: {0}")
        @ValueSource(strings = {"%s", "\"nope\", %s", "\"a\",\"b\" , %s , \"c\"", "*", "W/%s", "\"x\", W/%s"})
        void a_matching_if_none_match_gives_304_without_body(String template) {
            String etag = etag(lookup("20600662458"));

            HttpResponse<String> response = lookup("20600662458", "If-None-Match", template.formatted(etag));

            assertThat(response.statusCode()).isEqualTo(304);
            assertThat(response.body()).isEmpty();
            assertThat(response.headers().firstValue("ETag")).hasValue(etag);
            assertThat(response.headers().allValues("Cache-Control")).containsExactly(LOOKUP_CACHE);
        }

        @Test
        void a_gzip_encoded_answer_revalidates_with_its_own_tag() {
            // Long enough for the server to compress; Jetty then tags the gzip variant apart ("…--gzip").
            HttpResponse<String> first = lookup("20467539842", "Accept-Encoding", "gzip");
            assertThat(first.statusCode()).isEqualTo(200);

            HttpResponse<String> again = lookup("20467539842", "Accept-Encoding", "gzip", "If-None-Match", etag(first));

            assertThat(again.statusCode()).isEqualTo(304);
            assertThat(etag(again)).isEqualTo(etag(first));
        }

        @Test
        void if_none_match_over_several_header_lines() {
            String etag = etag(lookup("20600662458"));

            HttpResponse<String> response = lookup("20600662458",
                    "If-None-Match", "\"other\"", "If-None-Match", etag);

            assertThat(response.statusCode()).isEqualTo(304);
        }

        @ParameterizedTest(name = "If-None-Match: {0}")
        @ValueSource(strings = {"\"AAAAAAAAAAAAAAAAAAAAAA\"", "\"a\", W/\"b\"", "garbage", "\"unterminated"})
        void a_non_matching_if_none_match_gives_the_record(String ifNoneMatch) {
            String etag = etag(lookup("20600662458"));

            HttpResponse<String> response = lookup("20600662458", "If-None-Match", ifNoneMatch);

            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(etag(response)).isEqualTo(etag);
            assertThat(quipu.body(response).get("ruc").asText()).isEqualTo("20600662458");
        }

        @Test
        void the_etag_changes_exactly_when_the_record_does() throws Exception {
            String ruc = "20155472198";
            HttpResponse<String> before = lookup(ruc);
            assertThat(quipu.body(before).get("estado").asText()).isEqualTo("BAJA DEFINITIVA");

            setEstado(ruc, "ACTIVO");
            try {
                HttpResponse<String> changed = lookup(ruc, "If-None-Match", etag(before));
                assertThat(changed.statusCode()).isEqualTo(200);
                assertThat(quipu.body(changed).get("estado").asText()).isEqualTo("ACTIVO");
                assertThat(etag(changed)).isNotEqualTo(etag(before));
                assertThat(lookup(ruc, "If-None-Match", etag(changed)).statusCode()).isEqualTo(304);
            } finally {
                setEstado(ruc, "BAJA DEFINITIVA");
            }
            // Back to the same bytes, back to the same tag.
            HttpResponse<String> restored = lookup(ruc, "If-None-Match", etag(before));
            assertThat(restored.statusCode()).isEqualTo(304);
            assertThat(etag(restored)).isEqualTo(etag(before));
        }

        @ParameterizedTest(name = "{0}")
        @CsvSource(delimiter = ';', value = {
                "2010022746;exactly 11 digits",
                "201002274611;exactly 11 digits",
                "2010022746A;exactly 11 digits",
                "ABCDEFGHIJK;exactly 11 digits",
                "30123456781;starts with 10, 15, 16, 17 or 20, not 30",
                "20100227462;wrong check digit",
        })
        void an_invalid_ruc_is_a_validation_error_naming_the_rule(String ruc, String rule) {
            JsonNode problem = assertProblem(lookup(ruc), 400, "validation_error");

            assertThat(problem.get("detail").asText()).contains(rule);
            assertThat(problem.at("/errors/0/field").asText()).isEqualTo("ruc");
            assertThat(problem.at("/errors/0/message").asText()).contains(rule);
        }

        @Test
        void a_valid_ruc_absent_from_the_registry_is_not_found() {
            HttpResponse<String> response = lookup(ABSENT);

            JsonNode problem = assertProblem(response, 404, "not_found");
            assertThat(problem.get("detail").asText()).isEqualTo("No taxpayer with RUC " + ABSENT + " in the registry");
            assertThat(response.headers().firstValue("ETag")).isEmpty();
        }

        @Test
        void needs_a_key() {
            assertProblem(quipu.get("/v1/ruc/20100227461", null), 401, "unauthorized");
        }

        @Test
        void needs_the_ruc_read_scope() {
            String ubigeosOnly = quipu.accounts.newKey(Scope.UBIGEOS_READ);

            assertProblem(quipu.get("/v1/ruc/20100227461", ubigeosOnly), 403, "forbidden_scope");
        }
    }

    @Nested
    class Batch {

        @Test
        void answers_each_ruc_in_order_duplicates_and_unknowns_included() {
            HttpResponse<String> response = batch(
                    "{\"rucs\": [\"20600662458\", \"20100227461\", \"" + ABSENT + "\", \"20600662458\"]}");

            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.headers().allValues("Cache-Control")).containsExactly("no-store");
            assertThat(response.headers().firstValue("ETag")).isEmpty();
            JsonNode body = quipu.body(response);
            assertThat(fieldNames(body)).containsExactly("total", "ok", "errors", "results");
            assertThat(body.get("total").asInt()).isEqualTo(4);
            assertThat(body.get("ok").asInt()).isEqualTo(3);
            assertThat(body.get("errors").asInt()).isEqualTo(1);

            JsonNode results = body.get("results");
            assertThat(results).hasSize(4);
            List<String> order = new ArrayList<>();
            results.forEach(entry -> order.add(entry.get("ruc").asText()));
            assertThat(order).containsExactly("20600662458", "20100227461", ABSENT, "20600662458");

            JsonNode first = results.get(0);
            assertThat(fieldNames(first)).containsExactly("ruc", "status", "data");
            assertThat(first.get("status").asText()).isEqualTo("ok");
            assertThat(first.get("data")).isEqualTo(quipu.body(lookup("20600662458")));
            assertThat(results.get(1).get("data")).isEqualTo(quipu.body(lookup("20100227461")));
            assertThat(results.get(3)).isEqualTo(first);

            JsonNode unknown = results.get(2);
            assertThat(fieldNames(unknown)).containsExactly("ruc", "status", "error");
            assertThat(unknown.get("ruc").asText()).isEqualTo(ABSENT);
            assertThat(unknown.get("status").asText()).isEqualTo("error");
            assertThat(fieldNames(unknown.get("error"))).containsExactly("type", "status", "detail");
            assertThat(unknown.at("/error/type").asText()).isEqualTo("not_found");
            assertThat(unknown.at("/error/status").asInt()).isEqualTo(404);
            assertThat(unknown.at("/error/detail").asText()).isEqualTo("No taxpayer with RUC " + ABSENT + " in the registry");
        }

        @Test
        void takes_up_to_100_rucs() {
            List<String> rucs = new ArrayList<>();
            PadronFixtures.records().forEach(r -> rucs.add(r.ruc().value()));
            while (rucs.size() < 100) {
                rucs.add(ABSENT);
            }

            JsonNode body = quipu.body(batch(array(rucs)));

            assertThat(body.get("total").asInt()).isEqualTo(100);
            assertThat(body.get("ok").asInt()).isEqualTo(61);
            assertThat(body.get("errors").asInt()).isEqualTo(39);
            assertThat(body.get("results").get(60).get("ruc").asText()).isEqualTo("20155472198");
            assertThat(body.get("results").get(61).get("status").asText()).isEqualTo("error");
        }

        @Test
        void a_json_charset_is_accepted() {
            HttpResponse<String> response = quipu.post("/v1/ruc/batch", registry.key(), "application/json; charset=utf-8",
                    "{\"rucs\":[\"20100227461\"]}");

            assertThat(response.statusCode()).isEqualTo(200);
        }

        @ParameterizedTest(name = "[{index}] {0}")
        @CsvSource(delimiter = ';', value = {
                "'{\"rucs\": [\"20100227461\"'; not valid JSON",
                "'not json'; not valid JSON",
                "'{\"rucs\": [\"20100227461\"]} {}'; not valid JSON",
                "'{\"rucs\": [\"20100227461\"], \"rucs\": [\"20100227461\"]}'; more than once",
                "''; empty",
                "'[\"20100227461\"]'; must be a JSON object, not an array",
                "'\"20100227461\"'; must be a JSON object, not a string",
                "'null'; must be a JSON object, not null",
        })
        void a_body_that_is_not_a_json_object_is_a_validation_error(String body, String detail) {
            JsonNode problem = assertProblem(batch(body), 400, "validation_error");

            assertThat(problem.get("detail").asText()).contains(detail);
        }

        @ParameterizedTest(name = "{0}")
        @CsvSource(delimiter = ';', value = {
                "'{}'; rucs; is required",
                "'{\"rucs\": []}'; rucs; at least 1",
                "'{\"rucs\": \"20100227461\"}'; rucs; must be an array of RUC strings, not a string",
                "'{\"rucs\": null}'; rucs; must be an array of RUC strings, not null",
                "'{\"rucs\": [\"20100227461\"], \"plan\": \"pro\"}'; plan; unknown member",
                "'{\"rucs\": [\"20100227461\", 20600662458]}'; rucs[1]; must be a string of 11 digits, not a number",
                "'{\"rucs\": [null]}'; rucs[0]; must be a string of 11 digits, not null",
                "'{\"rucs\": [\"20100227461\", \"20600662458\", \"20100227461\", \"20100227462\"]}'; rucs[3]; wrong check digit",
                "'{\"rucs\": [\"30123456781\"]}'; rucs[0]; starts with 10, 15, 16, 17 or 20",
                "'{\"rucs\": [\"2010022746\"]}'; rucs[0]; exactly 11 digits",
        })
        void a_malformed_request_is_a_validation_error_naming_the_field(String body, String field, String message) {
            JsonNode problem = assertProblem(batch(body), 400, "validation_error");

            assertThat(problem.at("/errors/0/field").asText()).isEqualTo(field);
            assertThat(problem.at("/errors/0/message").asText()).contains(message);
            assertThat(problem.get("detail").asText()).startsWith(field + ": ").contains(message);
        }

        @Test
        void more_than_100_rucs_is_a_validation_error() {
            JsonNode problem = assertProblem(batch(array(Collections.nCopies(101, "20100227461"))), 400,
                    "validation_error");

            assertThat(problem.at("/errors/0/field").asText()).isEqualTo("rucs");
            assertThat(problem.at("/errors/0/message").asText()).isEqualTo("must hold at most 100 RUCs, got 101");
        }

        @Test
        void every_fault_is_listed() {
            JsonNode problem = assertProblem(batch("{\"rucs\": [\"1\", \"20100227461\", 7], \"x\": 1}"), 400,
                    "validation_error");

            assertThat(problem.get("errors").findValuesAsText("field")).containsExactly("x", "rucs[0]", "rucs[2]");
            assertThat(problem.get("detail").asText()).contains("and 2 more");
        }

        @Test
        void a_body_that_is_too_large_is_refused() {
            String body = "{\"rucs\": [\"20100227461\"]" + " ".repeat(70_000) + "}";

            // Repeated: the answer must reach the client every time, not only when it finished sending first.
            for (int i = 0; i < 20; i++) {
                HttpResponse<String> response = batch(body);
                assertProblem(response, 413, "payload_too_large");
                // Read to the end, so the connection stays usable.
                assertThat(response.headers().firstValue("Connection")).isEmpty();
            }
            assertThat(batch("{\"rucs\": [\"20100227461\"]}").statusCode()).isEqualTo(200);
        }

        @Test
        void a_body_beyond_what_is_worth_reading_closes_the_connection() {
            String body = "{\"rucs\": [\"20100227461\"]" + " ".repeat(2 * 1024 * 1024) + "}";
            try {
                HttpResponse<String> response = batch(body);
                assertProblem(response, 413, "payload_too_large");
                assertThat(response.headers().firstValue("Connection")).hasValue("close");
            } catch (java.io.UncheckedIOException reset) {
                // Past the drained bound the server may close while the client still sends: a reset is allowed.
                assertThat(reset.getCause()).isInstanceOf(java.io.IOException.class);
            }
        }

        @Test
        void takes_only_json() {
            HttpResponse<String> response = quipu.post("/v1/ruc/batch", registry.key(), "text/plain",
                    "{\"rucs\":[\"20100227461\"]}");

            assertProblem(response, 415, "unsupported_media_type");
        }

        @Test
        void needs_a_key() {
            assertProblem(quipu.post("/v1/ruc/batch", null, JSON, "{\"rucs\":[\"20100227461\"]}"), 401,
                    "unauthorized");
        }

        @Test
        void needs_the_ruc_read_scope() {
            String ubigeosOnly = quipu.accounts.newKey(Scope.UBIGEOS_READ);

            assertProblem(quipu.post("/v1/ruc/batch", ubigeosOnly, JSON, "{\"rucs\":[\"20100227461\"]}"), 403,
                    "forbidden_scope");
        }

        private static String array(List<String> rucs) {
            return "{\"rucs\": [" + String.join(",", rucs.stream().map(r -> "\"" + r + "\"").toList()) + "]}";
        }
    }

    private static List<String> fieldNames(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
