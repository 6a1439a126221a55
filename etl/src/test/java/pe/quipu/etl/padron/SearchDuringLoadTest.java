package pe.quipu.etl.padron;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.etl.generate.PadronGenerator;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.testing.PadronFixtures;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.core.ruc.PadronSample;
import pe.quipu.core.ruc.Ruc;
import pe.quipu.etl.testing.EtlRun;
import pe.quipu.etl.testing.EtlRunner;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Search by name across a padrón load: the new registry gets its normalised names and search index before the
 * swap, searches never fail while it is built, and after it they find the new names and not the old ones.
 */
class SearchDuringLoadTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();
    private static final EtlRunner etl = new EtlRunner(quipu.clock, quipu.bcrp, quipu.database);
    private static final String RENAMED = Ruc.completing("2099000001").value();
    private static final String ADDED = Ruc.completing("2099000002").value();
    private static String key;
    private static Path dir;

    @BeforeAll
    static void setUp() throws IOException {
        key = quipu.accounts.newKey(Scope.RUC_READ);
        dir = Files.createTempDirectory("quipu-search-load-test-");
    }

    @AfterAll
    static void putTheSampleBack() throws Exception {
        PadronFixtures.restore(quipu.database, dir);
    }

    private static HttpResponse<String> search(String text) {
        return quipu.get("/v1/ruc?q=" + URLEncoder.encode(text, StandardCharsets.UTF_8), key);
    }

    private static List<String> names(HttpResponse<String> response) {
        List<String> names = new ArrayList<>();
        quipu.body(response).get("items").forEach(item -> names.add(item.get("razonSocial").asText()));
        return names;
    }

    private static String line(String ruc, String name) {
        return ruc + "|" + name + "|ACTIVO|HABIDO|150101|-|-|-|-|-|-|-|-|-|-|\r\n";
    }

    private static Path padron(String name, long generated, String... extra) throws IOException {
        ByteArrayOutputStream file = new ByteArrayOutputStream();
        PadronGenerator.write(file, generated, 21);
        byte[] sample;
        try (var in = PadronSample.open()) {
            sample = in.readAllBytes();
        }
        String body = new String(sample, StandardCharsets.ISO_8859_1);
        file.write(body.substring(body.indexOf('\n') + 1).getBytes(StandardCharsets.ISO_8859_1));
        for (String e : extra) {
            file.write(e.getBytes(StandardCharsets.ISO_8859_1));
        }
        Path path = dir.resolve(name);
        Files.write(path, file.toByteArray());
        return path;
    }

    @Test
    void searches_never_fail_during_a_load_and_find_the_new_names_after_it() throws Exception {
        EtlRun first = etl.run("padron", "--file",
                padron("before.txt", 1_000, line(RENAMED, "ALLPAKAMAYOQ VIEJO S.A.C.")).toString());
        assertThat(first.exitCode()).as(first.stderr()).isZero();
        assertThat(names(search("allpakamayoq"))).containsExactly("ALLPAKAMAYOQ VIEJO S.A.C.");
        assertThat(names(search("yanantin masintin"))).isEmpty();

        Path after = padron("after.txt", 150_000, line(RENAMED, "ALLPAKAMAYOQ NUEVO S.A.C."),
                line(ADDED, "YANANTIN MASINTIN E.I.R.L."));
        AtomicInteger searches = new AtomicInteger();
        List<String> failures = Collections.synchronizedList(new ArrayList<>());
        EtlRun run = etl.runWhile(() -> {
            try {
                HttpResponse<String> sample = search("transportes cruz del sur");
                HttpResponse<String> renamed = search("allpakamayoq");
                searches.addAndGet(2);
                if (sample.statusCode() != 200 || !sample.body().contains("\"ruc\":\"20100227461\"")) {
                    failures.add("sample -> " + sample.statusCode() + " " + sample.body());
                }
                if (renamed.statusCode() != 200 || quipu.body(renamed).get("items").size() != 1) {
                    failures.add("renamed -> " + renamed.statusCode() + " " + renamed.body());
                }
            } catch (RuntimeException e) {
                failures.add(e.toString());
            }
        }, "padron", "--file", after.toString());

        assertThat(run.exitCode()).as(run.stderr()).isZero();
        assertThat(failures).isEmpty();
        assertThat(searches.get()).isPositive();
        // Which RUCs match is read from the new registry at once; the records' answers follow its NOTIFY.
        assertThat(search("yanantin masintin").body()).contains("\"ruc\":\"" + ADDED + "\"");
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                assertThat(names(search("allpakamayoq"))).containsExactly("ALLPAKAMAYOQ NUEVO S.A.C."));
        // The load listed the new registry's words: a misspelling of the new name finds it.
        assertThat(names(search("allpakamayok nuevo"))).containsExactly("ALLPAKAMAYOQ NUEVO S.A.C.");
        // Every word there first; then names close to some word (EIRL is in many).
        assertThat(names(search("Yanantin Masintin EIRL"))).first().isEqualTo("YANANTIN MASINTIN E.I.R.L.");
        // The trigram index in its two halves, by the RUC's tenth digit.
        assertThat(quipu.database.<String>rows("select indexdef from pg_indexes where tablename = 'ruc_registry'"
                + " and indexname like 'ruc_registry_search_%' order by indexname", rs -> rs.getString(1)))
                .satisfiesExactly(
                        half -> assertThat(half).contains("gin_trgm_ops").contains("10, 1) < '5'"),
                        half -> assertThat(half).contains("gin_trgm_ops").contains("10, 1) >= '5'"));
    }

    @Test
    void with_search_turned_off_the_load_leaves_the_index_out_and_the_column_stays_right() throws Exception {
        Path config = dir.resolve("off.yml");
        Files.writeString(config, """
                database:
                  embeddedDataDirectory: %s
                etl:
                  minRetainedShare: 0
                changes:
                  maxRemovedShare: 1
                search:
                  enabled: false
                """.formatted(quipu.database.dataDirectory()));
        EtlRun off = etl.runWith("padron", "--file",
                padron("off.txt", 1_000, line(RENAMED, "ALLPAKAMAYOQ APAGADO S.A.C.")).toString(), config.toString());
        assertThat(off.exitCode()).as(off.stderr()).isZero();
        assertThat(quipu.database.<String>rows("select indexname from pg_indexes where tablename = 'ruc_registry'",
                rs -> rs.getString(1))).containsExactly("ruc_registry_pkey");
        assertThat(quipu.database.<String>rows("select nombre_busqueda from ruc_registry where ruc = '" + RENAMED
                + "'", rs -> rs.getString(1))).containsExactly("allpakamayoq apagado sac");

        EtlRun on = etl.run("padron", "--file", padron("on.txt", 1_000).toString());
        assertThat(on.exitCode()).as(on.stderr()).isZero();
        assertThat(quipu.database.<String>rows("select indexname from pg_indexes where tablename = 'ruc_registry'",
                rs -> rs.getString(1))).containsExactlyInAnyOrder("ruc_registry_pkey", "ruc_registry_search_0",
                "ruc_registry_search_1");
        // The words table is the new registry's words, no more and no fewer, with its two indexes.
        assertThat(quipu.database.texts("""
                select count(*) from (select distinct w from ruc_registry, unnest(string_to_array(nombre_busqueda, ' ')) w
                                       where length(w) >= 3) r
                  full join ruc_registry_words t on t.word = r.w
                 where r.w is null or t.word is null""")).containsExactly("0");
        assertThat(quipu.database.texts("select count(*) from ruc_registry_words where word = 'apagado'"))
                .containsExactly("0");
        assertThat(quipu.database.texts("select indexname from pg_indexes where tablename = 'ruc_registry_words'"))
                .containsExactlyInAnyOrder("ruc_registry_words_pkey", "ruc_registry_words_trgm");
    }
}
