package pe.quipu.etl.padron;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.testing.PadronFixtures;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.core.ruc.Ruc;
import pe.quipu.etl.testing.EtlRun;
import pe.quipu.etl.testing.EtlRunner;
import pe.quipu.etl.testing.ProgressLog;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A padrón load publishes the day's differences and records them in the change log (contract §11): day 1 into an
 * empty registry, then day 2 with every kind of change, then day 2 again, then a file that removes too much. The
 * registry is shared with other test classes: each test starts from an empty one and the class puts the 61 sample
 * records back at the end.
 */
class RegistryChangesTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();
    private static final EtlRunner etl = new EtlRunner(quipu.clock, quipu.bcrp, quipu.database);

    private static final Instant DAY_1 = Instant.parse("2026-11-02T11:00:00Z");
    private static final Instant DAY_2 = Instant.parse("2026-11-03T11:00:00.123456Z");
    private static final Instant DAY_3 = Instant.parse("2026-11-04T11:00:00Z");

    private static final String ESTADO = Ruc.completing("2098000001").value();
    private static final String CONDICION = Ruc.completing("2098000002").value();
    private static final String ADDRESS = Ruc.completing("2098000003").value();
    private static final String NAME = Ruc.completing("2098000004").value();
    private static final String REMOVED = Ruc.completing("2098000005").value();
    private static final String ADDED = Ruc.completing("2098000006").value();
    private static final String RAW_PARTS = Ruc.completing("2098000007").value();
    private static final String UNCHANGED = Ruc.completing("2098000008").value();
    private static final String CLEARED = Ruc.completing("2098000009").value();

    private static String key;
    private static Path dir;
    private Instant clockBefore;

    @BeforeAll
    static void setUp() throws IOException {
        key = quipu.accounts.newKey(Scope.RUC_READ);
        dir = Files.createTempDirectory("quipu-registry-changes-test-");
    }

    @BeforeEach
    void emptyRegistry() {
        clockBefore = quipu.clock.instant();
        quipu.database.jdbi().useHandle(h -> h.execute("delete from ruc_registry"));
    }

    @AfterEach
    void restoreClock() {
        quipu.clock.set(clockBefore);
    }

    @AfterAll
    static void putTheSampleBack() throws IOException {
        PadronFixtures.restore(quipu.database, dir);
    }

    /** Day 1: nine records of the test's own after {@code generated} of the generator's. */
    private static PadronDay day1(long generated) {
        return new PadronDay(generated, 25)
                .put(ESTADO, "KUSI QHAWAY S.A.C.", "ACTIVO", "HABIDO", "150101")
                .put(CONDICION, "ILLAPA SUYU E.I.R.L.", "ACTIVO", "HABIDO", "150101")
                .put(ADDRESS, "SUMAQ KAWSAY S.A.", "ACTIVO", "HABIDO", "150101", "AV.", "LOS INCAS", "-", "-", "12")
                .put(NAME, "QOLLQEWASI TAKIRIY S.A.C.", "ACTIVO", "HABIDO", "150101")
                .put(REMOVED, "CHUSKUWASI MIKHUY E.I.R.L.", "ACTIVO", "HABIDO", "150101")
                .put(RAW_PARTS, "YACHAY WASI S.R.L.", "ACTIVO", "HABIDO", "150101", "CAL.", "INTI RAYMI", "-", "-", "7")
                .put(UNCHANGED, "ALLIN RURAY S.A.C.", "ACTIVO", "HABIDO", "150101")
                .put(CLEARED, "MUNAY PACHA S.A.C.", "ACTIVO", "NO HALLADO", "150103", "JR.", "AMARU", "URB.",
                        "SANTA ROSA", "1");
    }

    /**
     * Day 2, every kind of change: estado, condición, ubigeo and address, name, removed, added, ubigeo and address
     * gone, and one whose address parts move between columns without changing its direccion.
     */
    private static PadronDay day2(PadronDay day1) {
        return day1.next()
                .set(ESTADO, 2, "BAJA DE OFICIO")
                .set(CONDICION, 3, "NO HABIDO")
                .set(ADDRESS, 4, "150102").set(ADDRESS, 9, "14")
                .set(NAME, 1, "WAYRAPACHA TAKIRIY S.A.C.")
                .remove(REMOVED)
                .put(ADDED, "PACHAKAMAQ RIMAY S.A.", "ACTIVO", "HABIDO", "150101")
                .set(RAW_PARTS, 5, "-").set(RAW_PARTS, 6, "CAL. INTI RAYMI")
                .put(CLEARED, "MUNAY PACHA S.A.C.", "ACTIVO", "NO HALLADO", "-");
    }

    /** Day 2's change log, whichever way it was published. */
    private static List<Change> day2Changes(long runId) {
        return List.of(
                change(ESTADO, "changed", "{\"estado\": {\"from\": \"ACTIVO\", \"to\": \"BAJA DE OFICIO\"}}", runId),
                change(CONDICION, "changed", "{\"condicion\": {\"from\": \"HABIDO\", \"to\": \"NO HABIDO\"}}", runId),
                change(ADDRESS, "changed", """
                        {"ubigeo": {"from": "150101", "to": "150102"},
                         "direccion": {"from": "AV. LOS INCAS NRO. 12", "to": "AV. LOS INCAS NRO. 14"}}""", runId),
                change(NAME, "changed", """
                        {"razonSocial": {"from": "QOLLQEWASI TAKIRIY S.A.C.", "to": "WAYRAPACHA TAKIRIY S.A.C."}}""",
                        runId),
                change(REMOVED, "removed", null, runId),
                change(ADDED, "added", null, runId),
                // A null side stays in the object.
                change(CLEARED, "changed", """
                        {"ubigeo": {"from": "150103", "to": null},
                         "direccion": {"from": "JR. AMARU NRO. 1 URB. SANTA ROSA", "to": null}}""", runId));
    }

    @ParameterizedTest(name = "{0} generated records beside them")
    // 2,000 records beside the test's nine: day 2 changes well under 10 % of the registry, which is applied to the
    // registry in service. None: it changes most of it, and a new registry is built; the change log is the same.
    @ValueSource(ints = {2_000, 0})
    void day_two_records_every_change_exactly_and_moves_only_the_changed_records(int generated) throws Exception {
        PadronDay day1 = day1(generated);
        quipu.clock.set(DAY_1);
        EtlRun first = etl.run("padron", "--file", day1.writeTo(dir.resolve("day1.txt")).toString());
        assertThat(first.exitCode()).as(first.stdout()).isZero();
        // The first load into an empty registry records nothing: the log starts from it.
        assertThat(changesOf(first.runId())).isEmpty();
        assertThat(quipu.database.texts("select concat_ws(',', rows, added, changed, removed) from dataset_loads"
                + " where dataset = 'padron'")).containsExactly(String.valueOf(generated + 8));
        Map<String, String> etags = etags(ESTADO, RAW_PARTS, UNCHANGED, NAME);
        long tableBefore = registryTable();

        quipu.clock.set(DAY_2);
        EtlRun second = etl.run("padron", "--file", day2(day1).writeTo(dir.resolve("day2.txt")).toString());

        assertThat(second.exitCode()).as(second.stdout()).isZero();
        assertThat(registryTable() == tableBefore).as("published into the registry in service").isEqualTo(generated > 0);
        assertThat(changesOf(second.runId())).isEqualTo(day2Changes(second.runId()));
        assertThat(quipu.database.texts("select concat_ws(',', rows, added, changed, removed) from dataset_loads"
                + " where dataset = 'padron'")).containsExactly((generated + 8) + ",1,5,1");
        // The added and changed records carry the publication's time, which is the change's at; the others kept theirs.
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            for (String ruc : List.of(ESTADO, CONDICION, ADDRESS, NAME, ADDED, CLEARED)) {
                assertThat(record(ruc).path("actualizado").asText()).as(ruc).isEqualTo(DAY_2.toString());
            }
            assertThat(quipu.get("/v1/ruc/" + REMOVED, key).statusCode()).isEqualTo(404);
        });
        assertThat(record(ESTADO).path("estado").asText()).isEqualTo("BAJA DE OFICIO");
        assertThat(record(CLEARED).path("direccion").isNull()).isTrue();
        assertThat(record(UNCHANGED).path("actualizado").asText()).isEqualTo(DAY_1.toString());
        // Parts that compose the same answer: stored as published, but the answer, its time and its ETag stay.
        assertThat(record(RAW_PARTS).path("actualizado").asText()).isEqualTo(DAY_1.toString());
        assertThat(record(RAW_PARTS).path("direccion").asText()).isEqualTo("CAL. INTI RAYMI NRO. 7");
        assertThat(quipu.database.texts("select coalesce(tipo_via, 'null') || '|' || nombre_via from ruc_registry"
                + " where ruc = ?", RAW_PARTS)).containsExactly("null|CAL. INTI RAYMI");
        assertThat(etag(RAW_PARTS)).isEqualTo(etags.get(RAW_PARTS));
        assertThat(etag(UNCHANGED)).isEqualTo(etags.get(UNCHANGED));
        assertThat(etag(ESTADO)).isNotEqualTo(etags.get(ESTADO));
        assertThat(etag(NAME)).isNotEqualTo(etags.get(NAME));

        // The names' words: the renamed and removed names' own words are gone, the new ones are there.
        assertThat(words("qollqewasi", "chuskuwasi", "mikhuy", "wayrapacha", "pachakamaq", "rimay", "takiriy"))
                .containsExactly("pachakamaq 1", "rimay 1", "takiriy 1", "wayrapacha 1");
        assertWordsExact();
        // Search by name finds the new name, and not the old one.
        assertThat(quipu.get("/v1/ruc?q=wayrapacha", key).body()).contains(NAME);
        assertThat(quipu.body(quipu.get("/v1/ruc?q=qollqewasi", key)).path("items")).isEmpty();
    }

    @Test
    void an_unchanged_reload_records_nothing_and_keeps_every_actualizado_and_etag() throws Exception {
        try (ProgressLog progress = new ProgressLog()) {
            PadronDay day1 = day1(1_000);
            quipu.clock.set(DAY_1);
            assertThat(etl.run("padron", "--file", day1.writeTo(dir.resolve("day1.txt")).toString()).exitCode())
                    .isZero();
            // Into an empty registry: nothing to compare; a new registry, indexed.
            assertThat(phases(progress)).containsExactly("stage", "publish", "index");
            quipu.clock.set(DAY_2);
            Path day2 = day2(day1).writeTo(dir.resolve("day2.txt"));
            assertThat(etl.run("padron", "--file", day2.toString()).exitCode()).isZero();
            // A few changes, applied to the registry in service: no index to build.
            assertThat(phases(progress)).containsExactly("stage", "compare", "publish");
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() ->
                    assertThat(record(ADDED).path("actualizado").asText()).isEqualTo(DAY_2.toString()));
            List<String> rucs = List.of(ESTADO, CONDICION, ADDRESS, NAME, ADDED, RAW_PARTS, UNCHANGED, CLEARED);
            Map<String, String> etags = etags(rucs.toArray(String[]::new));
            List<String> actualizados = quipu.database.texts(
                    "select ruc || ' ' || actualizado from ruc_registry order by ruc");
            long logged = Long.parseLong(quipu.database.texts("select count(*) from ruc_changes").getFirst());

            quipu.clock.set(DAY_3);
            progress.clear();
            EtlRun again = etl.run("padron", "--file", day2.toString());

            assertThat(again.exitCode()).as(again.stdout()).isZero();
            assertThat(progress.phaseEnds()).last().asString()
                    .matches("padron: publish done in .*, 0 records differing");
            assertThat(changesOf(again.runId())).isEmpty();
            assertThat(quipu.database.texts("select count(*) from ruc_changes"))
                    .containsExactly(String.valueOf(logged));
            assertThat(quipu.database.texts("select ruc || ' ' || actualizado from ruc_registry order by ruc"))
                    .isEqualTo(actualizados);
            assertThat(etags(rucs.toArray(String[]::new))).isEqualTo(etags);
            // Still a load: its time and its (empty) change counts.
            assertThat(quipu.database.texts("select concat_ws(',', loaded_at = ?, added, changed, removed)"
                    + " from dataset_loads where dataset = 'padron'", DAY_3))
                    .containsExactly("t,0,0,0");
            assertWordsExact();
        }
    }

    /** The phases whose last line {@code progress} has seen since the last call, by name; forgets them. */
    private static List<String> phases(ProgressLog progress) {
        List<String> phases = progress.phaseEnds().stream().map(l -> l.replaceAll("^padron: (\\w+) done in .*", "$1"))
                .toList();
        progress.clear();
        return phases;
    }

    @Test
    void a_file_that_would_remove_more_than_the_allowed_share_is_refused_and_changes_nothing() throws Exception {
        PadronDay day1 = day1(1_000);
        quipu.clock.set(DAY_1);
        assertThat(etl.run("padron", "--file", day1.writeTo(dir.resolve("day1.txt")).toString()).exitCode()).isZero();
        quipu.clock.set(DAY_2);
        assertThat(etl.run("padron", "--file", day2(day1).writeTo(dir.resolve("day2.txt")).toString()).exitCode())
                .isZero();
        List<String> registry = quipu.database.texts("select ruc || ' ' || content_hash || ' ' || actualizado"
                + " from ruc_registry order by ruc");
        List<String> log = quipu.database.texts("select id || ' ' || ruc from ruc_changes order by id");
        List<String> loads = quipu.database.texts("select concat_ws(',', rows, loaded_at, added, changed, removed)"
                + " from dataset_loads where dataset = 'padron'");
        List<String> words = quipu.database.texts("select word || ' ' || occurrences from ruc_registry_words"
                + " order by word");

        // Day 3: the generator's first 940 rows only, so 60 of the 1,008 records in service would go (5.95 %), with
        // a change that would otherwise be published.
        quipu.clock.set(DAY_3);
        PadronDay day3 = day2(day1).withGenerated(940).set(ESTADO, 2, "ACTIVO");
        EtlRun run = etl.runRemovingAtMost(0.05, "padron", "--file", day3.writeTo(dir.resolve("day3.txt")).toString());

        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.stdout()).hasLineCount(1).startsWith("padron failed: read 948, written 0, rejected 0,")
                .contains("the file would remove 60 of the 1008 records of the registry in service (5.95 %), over"
                        + " the 5.00 % a load may remove (changes.maxRemovedShare)");
        assertThat(etl.events(run.runId())).extracting(e -> e.path("type").asText())
                .containsExactly("etl.run.started", "etl.run.failed");
        assertThat(quipu.database.texts("select ruc || ' ' || content_hash || ' ' || actualizado"
                + " from ruc_registry order by ruc")).isEqualTo(registry);
        assertThat(quipu.database.texts("select id || ' ' || ruc from ruc_changes order by id")).isEqualTo(log);
        assertThat(quipu.database.texts("select concat_ws(',', rows, loaded_at, added, changed, removed)"
                + " from dataset_loads where dataset = 'padron'")).isEqualTo(loads);
        assertThat(quipu.database.texts("select word || ' ' || occurrences from ruc_registry_words order by word"))
                .isEqualTo(words);
        assertThat(quipu.database.texts("select tablename::text from pg_tables where tablename like 'ruc_registry_%'"
                + " and tablename <> 'ruc_registry_words'")).isEmpty();
        assertThat(record(ESTADO).path("estado").asText()).isEqualTo("BAJA DE OFICIO");

        // Within the share, the same file is published.
        EtlRun within = etl.runRemovingAtMost(0.06, "padron", "--file", dir.resolve("day3.txt").toString());
        assertThat(within.exitCode()).as(within.stdout()).isZero();
        assertThat(quipu.database.texts("select kind || ' ' || count(*) from ruc_changes where load_run_id = ?"
                + " group by kind order by kind", within.runId())).containsExactly("changed 1", "removed 60");
    }

    // --- helpers

    /** One row of the change log, as read back. */
    record Change(String ruc, String kind, JsonNode changes, JsonNode padrones, long loadRunId, Instant at) {
    }

    private static Change change(String ruc, String kind, String changes, long runId) {
        try {
            return new Change(ruc, kind, changes == null ? null : quipu.json.readTree(changes), null, runId, DAY_2);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** The change log's rows of one run, by RUC. */
    static List<Change> changesOf(long runId) {
        return quipu.database.rows("""
                select ruc, kind, changes::text, padrones::text, load_run_id, at from ruc_changes
                 where load_run_id = ? order by ruc, id""", rs -> new Change(rs.getString(1), rs.getString(2),
                json(rs.getString(3)), json(rs.getString(4)), rs.getLong(5),
                rs.getObject(6, OffsetDateTime.class).toInstant()), runId);
    }

    private static JsonNode json(String text) {
        try {
            return text == null ? null : quipu.json.readTree(text);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static long registryTable() {
        return Long.parseLong(quipu.database.texts("select 'ruc_registry'::regclass::oid").getFirst());
    }

    private static JsonNode record(String ruc) {
        HttpResponse<String> response = quipu.get("/v1/ruc/" + ruc, key);
        assertThat(response.statusCode()).as(ruc + " " + response.body()).isEqualTo(200);
        return quipu.body(response);
    }

    private static String etag(String ruc) {
        return quipu.get("/v1/ruc/" + ruc, key).headers().firstValue("ETag").orElseThrow();
    }

    private static Map<String, String> etags(String... rucs) {
        Map<String, String> etags = new LinkedHashMap<>();
        for (String ruc : rucs) {
            etags.put(ruc, etag(ruc));
        }
        return etags;
    }

    private static List<String> words(String... words) {
        return quipu.database.texts("select word || ' ' || occurrences from ruc_registry_words"
                + " where word = any(?) order by word", (Object) words);
    }

    /** The words table holds exactly the names' words, each with how often it occurs in them. */
    static void assertWordsExact() {
        assertThat(quipu.database.texts("""
                select count(*) from (select w, count(*) as n from ruc_registry,
                                             unnest(string_to_array(nombre_busqueda, ' ')) w
                                       where length(w) >= 3 group by w) r
                  full join ruc_registry_words t on t.word = r.w
                 where r.w is null or t.word is null or t.occurrences <> r.n""")).containsExactly("0");
    }
}
