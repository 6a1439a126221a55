package pe.quipu.api.ruc;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import pe.quipu.api.testing.QuipuClient;
import pe.quipu.api.testing.QuipuExtension;

import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static pe.quipu.api.ruc.RucFixture.etag;
import static pe.quipu.api.testing.ProblemAssert.assertProblem;

/**
 * {@code include=padrones,anexos} on the single and batch lookups (contract §10), with SUNAT's lists and premises
 * written straight into their tables as the ETL's jobs leave them. Each test starts from empty lists and premises.
 */
class RucIncludeTest {

    private static final String RUC = "20100227461";
    /** In the sample, on no list and without premises. */
    private static final String OTHER = "20330791412";

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    private static RucFixture registry;

    @BeforeAll
    static void load() {
        registry = RucFixture.load(quipu);
    }

    @BeforeEach
    void empty() {
        clear();
    }

    @AfterAll
    static void cleanUp() {
        clear();
    }

    @Test
    void without_include_the_answer_is_byte_for_byte_the_same_with_or_without_lists_and_premises() {
        HttpResponse<String> before = registry.lookup(RUC);
        HttpResponse<String> emptyInclude = registry.lookup(RUC + "?include=");

        loadTheExample();

        for (QuipuClient instance : List.of(quipu, quipu.peer())) {
            HttpResponse<String> after = registry.lookup(instance, RUC);
            assertThat(after.body()).isEqualTo(before.body());
            assertThat(etag(after)).isEqualTo(etag(before));
            HttpResponse<String> batch = registry.batch(instance, "{\"rucs\":[\"" + RUC + "\"]}");
            assertThat(batch.body()).contains(before.body()).doesNotContain("padrones").doesNotContain("anexos");
        }
        assertThat(emptyInclude.body()).isEqualTo(before.body());
        assertThat(etag(emptyInclude)).isEqualTo(etag(before));
    }

    @Test
    void include_adds_the_lists_ordered_by_padron_and_the_premises_ordered_by_ubigeo_then_direccion() throws Exception {
        String plain = registry.lookup(RUC).body();
        loadTheExample();

        HttpResponse<String> both = registry.lookup(RUC + "?include=padrones,anexos");

        assertThat(both.statusCode()).isEqualTo(200);
        // The record's own bytes first, then what was asked.
        assertThat(both.body()).startsWith(plain.substring(0, plain.length() - 1) + ",\"padrones\":[");
        JsonNode body = quipu.body(both);
        assertThat(body.path("padrones").toString()).isEqualTo("""
                [{"padron":"agentes_retencion","desde":"2002-06-01","resolucion":"R.S. 037-2002/SUNAT"},\
                {"padron":"buenos_contribuyentes","desde":"2014-01-01","resolucion":"R.S. 313-2014/SUNAT"}]""");
        assertThat(body.path("anexos").toString()).isEqualTo("""
                [{"ubigeo":"040101","departamento":"Arequipa","provincia":"Arequipa","distrito":"Arequipa",\
                "direccion":"AV. PARRA NRO. 212 URB. LA NEGRITA"},\
                {"ubigeo":"150137","departamento":"Lima","provincia":"Lima","distrito":"Santa Anita",\
                "direccion":"AV. JAVIER PRADO ESTE NRO. 1155"},\
                {"ubigeo":"150137","departamento":"Lima","provincia":"Lima","distrito":"Santa Anita",\
                "direccion":"CAL. LOS FICUS MZA. B LOTE. 4"},\
                {"ubigeo":null,"departamento":null,"provincia":null,"distrito":null,"direccion":null}]""");
        // The example of the OpenAPI document is this answer, but for the last premise.
        JsonNode example = new com.fasterxml.jackson.databind.ObjectMapper(
                new com.fasterxml.jackson.dataformat.yaml.YAMLFactory()).readTree(getClass().getClassLoader()
                .getResourceAsStream("quipu/openapi.yaml")).at("/components/examples/RucRecordIncluded/value");
        assertThat(example.path("padrones")).isEqualTo(body.path("padrones"));
        assertThat(example.path("anexos").get(1)).isEqualTo(body.path("anexos").get(1));

        // Either alone, in either order or repeated; nothing else in the body.
        JsonNode padrones = quipu.body(registry.lookup(RUC + "?include=padrones"));
        assertThat(padrones.has("anexos")).isFalse();
        assertThat(padrones.path("padrones")).isEqualTo(body.path("padrones"));
        JsonNode anexos = quipu.body(registry.lookup(RUC + "?include=anexos"));
        assertThat(anexos.has("padrones")).isFalse();
        assertThat(anexos.path("anexos")).isEqualTo(body.path("anexos"));
        HttpResponse<String> reordered = registry.lookup(RUC + "?include=anexos&include=padrones");
        assertThat(reordered.body()).isEqualTo(both.body());
        assertThat(etag(reordered)).isEqualTo(etag(both));

        // On no list and without premises: empty arrays.
        assertThat(registry.lookup(OTHER + "?include=padrones,anexos").body())
                .endsWith(",\"padrones\":[],\"anexos\":[]}");
    }

    @Test
    void the_etag_covers_what_was_included_and_changes_on_every_instance_when_a_list_or_premise_changes() {
        loadTheExample();
        List<QuipuClient> instances = List.of(quipu, quipu.peer());
        String plain = etag(registry.lookup(RUC));
        String both = etag(registry.lookup(RUC + "?include=padrones,anexos"));
        String padrones = etag(registry.lookup(RUC + "?include=padrones"));
        assertThat(List.of(plain, both, padrones)).doesNotHaveDuplicates();
        for (QuipuClient instance : instances) {
            // Twice: the second comes from memory.
            registry.lookup(instance, RUC + "?include=padrones,anexos");
            HttpResponse<String> unchanged = registry.lookup(instance, RUC + "?include=padrones,anexos",
                    "If-None-Match", both);
            assertThat(unchanged.statusCode()).isEqualTo(304);
            assertThat(etag(unchanged)).isEqualTo(both);
        }

        sql("insert into sunat_padrones values ('" + RUC + "', 'agentes_percepcion', '2010-03-01', 'R.S. 058-2006/SUNAT')");

        for (QuipuClient instance : instances) {
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(registry.lookup(instance, RUC
                    + "?include=padrones,anexos", "If-None-Match", both).statusCode()).isEqualTo(200));
            JsonNode now = instance.body(registry.lookup(instance, RUC + "?include=padrones"));
            assertThat(now.path("padrones").get(0).path("padron").asText()).isEqualTo("agentes_percepcion");
            // Asked without include, the answer has not moved.
            assertThat(etag(registry.lookup(instance, RUC))).isEqualTo(plain);
        }
        String withPercepcion = etag(registry.lookup(RUC + "?include=padrones,anexos"));
        String listsOnly = etag(registry.lookup(RUC + "?include=padrones"));

        sql("update locales_anexos set numero = '1157' where numero = '1155'");

        for (QuipuClient instance : instances) {
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(registry.lookup(instance, RUC
                    + "?include=anexos").body()).contains("AV. JAVIER PRADO ESTE NRO. 1157"));
            assertThat(etag(registry.lookup(instance, RUC + "?include=padrones,anexos")))
                    .isNotEqualTo(withPercepcion);
            // Only the premises changed: the answer with the lists alone keeps its tag.
            assertThat(etag(registry.lookup(instance, RUC + "?include=padrones"))).isEqualTo(listsOnly);
        }
    }

    @Test
    void the_batch_includes_what_its_body_asks_for_every_record_found() {
        loadTheExample();
        String single = registry.lookup(RUC + "?include=padrones,anexos").body();
        String other = registry.lookup(OTHER + "?include=padrones,anexos").body();

        HttpResponse<String> batch = registry.batch("""
                {"rucs":["%s","%s","20123456786","%s"],"include":["anexos","padrones"]}""".formatted(RUC, OTHER, RUC));

        assertThat(batch.statusCode()).isEqualTo(200);
        JsonNode results = quipu.body(batch).path("results");
        assertThat(results.get(0).path("data").toString()).isEqualTo(quipu.body(registry.lookup(RUC
                + "?include=padrones,anexos")).toString());
        assertThat(batch.body()).contains("\"data\":" + single).contains("\"data\":" + other);
        assertThat(results.get(2).path("status").asText()).isEqualTo("error");
        assertThat(results.get(3).path("data")).isEqualTo(results.get(0).path("data"));

        JsonNode padrones = quipu.body(registry.batch("""
                {"rucs":["%s"],"include":["padrones"]}""".formatted(RUC))).path("results").get(0).path("data");
        assertThat(padrones.has("padrones")).isTrue();
        assertThat(padrones.has("anexos")).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"padron", "PADRONES", "padrones,anexo", "padrones;anexos", "all"})
    void an_unknown_name_in_include_is_400_naming_the_parameter(String include) {
        HttpResponse<String> response = registry.lookup(RUC + "?include="
                + URLEncoder.encode(include, StandardCharsets.UTF_8));

        JsonNode problem = assertProblem(response, 400, "validation_error");
        assertThat(problem.path("errors").get(0).path("field").asText()).isEqualTo("include");
        assertThat(problem.path("detail").asText()).contains("padrones, anexos");
    }

    @ParameterizedTest
    @ValueSource(strings = {"\"include\":\"padrones\"", "\"include\":[\"padrones,anexos\"]", "\"include\":[1]",
            "\"include\":[\"sucursales\"]"})
    void a_batch_with_a_bad_include_is_400(String member) {
        HttpResponse<String> response = registry.batch("{\"rucs\":[\"" + RUC + "\"]," + member + "}");

        JsonNode problem = assertProblem(response, 400, "validation_error");
        assertThat(problem.path("errors").get(0).path("field").asText()).startsWith("include");
    }

    @Test
    void status_shows_each_list_and_the_premises_null_until_loaded_then_their_rows_and_time() {
        JsonNode before = quipu.body(quipu.get("/v1/status", null));
        assertThat(before.path("padrones").toString()).isEqualTo("{\"agentes_percepcion\":null,"
                + "\"agentes_percepcion_combustibles\":null,\"agentes_retencion\":null,\"buenos_contribuyentes\":null}");
        assertThat(before.has("anexos")).isTrue();
        assertThat(before.path("anexos").isNull()).isTrue();

        sql("insert into dataset_loads values ('agentes-retencion', 3, '2026-10-07T15:00:00Z'),"
                + " ('locales-anexos', 1200, '2026-10-07T16:00:00Z')");
        quipu.clock.advance(Duration.ofSeconds(6)); // past the status's own 5 s memory

        JsonNode after = quipu.body(quipu.get("/v1/status", null));
        assertThat(after.path("padrones").path("agentes_retencion").toString())
                .isEqualTo("{\"rows\":3,\"loadedAt\":\"2026-10-07T15:00:00Z\"}");
        assertThat(after.path("padrones").path("buenos_contribuyentes").isNull()).isTrue();
        assertThat(after.path("anexos").toString()).isEqualTo("{\"rows\":1200,\"loadedAt\":\"2026-10-07T16:00:00Z\"}");
        quipu.clock.advance(Duration.ofSeconds(6));
    }

    /** The data of the OpenAPI document's example, and one premise without ubigeo or address. */
    private static void loadTheExample() {
        sql("insert into sunat_padrones values"
                + " ('" + RUC + "', 'buenos_contribuyentes', '2014-01-01', 'R.S. 313-2014/SUNAT'),"
                + " ('" + RUC + "', 'agentes_retencion', '2002-06-01', 'R.S. 037-2002/SUNAT')");
        sql("insert into locales_anexos (ruc, ubigeo, tipo_via, nombre_via, codigo_zona, tipo_zona, numero, manzana,"
                + " lote) values"
                + " ('" + RUC + "', '150137', 'CAL.', 'LOS FICUS', null, null, null, 'B', '4'),"
                + " ('" + RUC + "', null, null, null, null, null, null, null, null),"
                + " ('" + RUC + "', '150137', 'AV.', 'JAVIER PRADO ESTE', null, null, '1155', null, null),"
                + " ('" + RUC + "', '040101', 'AV.', 'PARRA', 'URB.', 'LA NEGRITA', '212', null, null)");
        // Heard by this instance (NOTIFY at commit, a few milliseconds later) before the test goes on.
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(quipu.body(registry.lookup(RUC
                + "?include=padrones,anexos")).path("anexos").size()).isEqualTo(4));
    }

    private static void sql(String statement) {
        quipu.database.jdbi().useHandle(h -> h.execute(statement));
    }

    private static void clear() {
        sql("delete from sunat_padrones");
        sql("delete from locales_anexos");
        sql("delete from dataset_loads where dataset in ('agentes-retencion', 'buenos-contribuyentes',"
                + " 'agentes-percepcion', 'agentes-percepcion-combustibles', 'locales-anexos')");
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(registry.lookup(RUC
                + "?include=padrones,anexos").body()).endsWith(",\"padrones\":[],\"anexos\":[]}"));
    }
}
