package pe.quipu.etl.padron;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.testing.PadronFixtures;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.core.ruc.PadronLine;
import pe.quipu.core.ruc.RegistryUpsert;
import pe.quipu.core.ruc.Ruc;
import pe.quipu.etl.run.Progress;
import pe.quipu.etl.testing.EtlRun;
import pe.quipu.etl.testing.EtlRunner;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A reload parses and stages only the lines that are not, byte for byte, the ones their records were loaded from
 * ({@link RegistryLines}), and publishes exactly what a comparison of every line would: the same registry, the same
 * change log, the same counts.
 */
class ChangedLinesTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();
    private static final EtlRunner etl = new EtlRunner(quipu.clock, quipu.bcrp, quipu.database);

    private static final Instant DAY_1 = Instant.parse("2026-11-02T11:00:00Z");
    private static final Instant DAY_2 = Instant.parse("2026-11-03T11:00:00Z");

    private static final String FIRST_KEPT = Ruc.completing("2097000001").value();
    private static final String LAST_WINS = Ruc.completing("2097000002").value();
    private static final String BACK_AGAIN = Ruc.completing("2097000003").value();
    private static final String NEW_TWICE = Ruc.completing("2097000004").value();
    private static final String EDITED = Ruc.completing("2097000005").value();
    private static final String GONE = Ruc.completing("2097000006").value();

    private static Path dir;
    private Instant clockBefore;

    @BeforeAll
    static void setUp() throws IOException {
        dir = Files.createTempDirectory("quipu-changed-lines-test-");
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

    private static PadronDay day1() {
        return new PadronDay(3_000, 31)
                .put(FIRST_KEPT, "HATUN MAYU S.A.C.", "ACTIVO", "HABIDO", "150101")
                .put(LAST_WINS, "PUKA RUMI E.I.R.L.", "ACTIVO", "HABIDO", "150101")
                .put(BACK_AGAIN, "YURAQ WASI S.A.", "ACTIVO", "HABIDO", "150101")
                .put(EDITED, "QORI CHASKA S.A.C.", "ACTIVO", "HABIDO", "150101")
                .put(GONE, "CHAKA RUNA S.R.L.", "ACTIVO", "HABIDO", "150101");
    }

    /** {@code day1} loaded into the empty registry on {@link #DAY_1}; returns its file. */
    private static Path loadDay1(PadronDay day1) throws Exception {
        quipu.clock.set(DAY_1);
        Path file = day1.writeTo(dir.resolve("day1.txt"));
        EtlRun run = etl.run("padron", "--file", file.toString());
        assertThat(run.exitCode()).as(run.stdout()).isZero();
        return file;
    }

    /** The change log's rows of one run, as {@code ruc kind}, in RUC order. */
    private static List<String> changesOf(long runId) {
        return quipu.database.texts("select ruc || ' ' || kind from ruc_changes where load_run_id = ? order by ruc, id",
                runId);
    }

    private static String line(String ruc, String name, String estado) {
        return ruc + "|" + name + "|" + estado + "|HABIDO|150101|-|-|-|-|-|-|-|-|-|-|\r\n";
    }

    @Test
    void a_reload_stages_only_the_lines_that_are_not_the_ones_loaded_before() throws Exception {
        PadronDay day1 = day1();
        quipu.clock.set(DAY_1);
        EtlRun first = etl.run("padron", "--file", day1.writeTo(dir.resolve("day1.txt")).toString());
        assertThat(first.exitCode()).as(first.stdout()).isZero();
        // A first load stages every line, and keeps each record's line fingerprint.
        assertThat(etl.stepContext(first.runId(), "stage")).containsEntry(PadronJob.CHANGED_LINES_ONLY, false);
        assertThat(quipu.database.texts("select count(*) from ruc_registry where line_hash is null"))
                .containsExactly("0");

        quipu.clock.set(DAY_2);
        PadronDay day2 = day1.next().set(LAST_WINS, 2, "BAJA DE OFICIO").remove(GONE);
        EtlRun second = etl.run("padron", "--file", day2.writeTo(dir.resolve("day2.txt")).toString());

        assertThat(second.exitCode()).as(second.stdout()).isZero();
        assertThat(second.stdout()).startsWith("padron succeeded: read 3004, written 3004, rejected 0,");
        // 3,003 lines are the ones loaded before: one line changed, and one record has no line.
        assertThat(etl.stepContext(second.runId(), "stage"))
                .containsEntry(PadronJob.CHANGED_LINES_ONLY, true)
                .containsEntry(PadronJob.UNCHANGED_LINES, 3003L);
        assertThat(changesOf(second.runId()))
                .containsExactly(LAST_WINS + " changed", GONE + " removed");
        assertThat(quipu.database.texts("select concat_ws(',', rows, added, changed, removed) from dataset_loads"
                + " where dataset = 'padron'")).containsExactly("3004,0,1,1");
        assertThat(quipu.database.texts("select count(*) from ruc_registry where line_hash is null"))
                .containsExactly("0");
    }

    @Test
    void a_ruc_met_twice_keeps_its_last_line_whichever_of_them_is_the_one_in_service() throws Exception {
        PadronDay day1 = day1();
        loadDay1(day1);

        // The line in service, then a changed one; a changed line, then the one in service again; a RUC not in
        // service, twice.
        ByteArrayOutputStream file = new ByteArrayOutputStream();
        day1.next().remove(LAST_WINS).remove(BACK_AGAIN).write(file);
        file.writeBytes((line(LAST_WINS, "PUKA RUMI E.I.R.L.", "ACTIVO") + line(LAST_WINS, "PUKA RUMI E.I.R.L.", "SUSPENSION TEMPORAL")
                + line(BACK_AGAIN, "YURAQ WASI S.A.", "BAJA DE OFICIO") + line(BACK_AGAIN, "YURAQ WASI S.A.", "ACTIVO")
                + line(NEW_TWICE, "MUSUQ NAN S.A.C.", "ACTIVO") + line(NEW_TWICE, "MUSUQ NAN S.A.", "ACTIVO"))
                .getBytes(StandardCharsets.ISO_8859_1));
        Path day2 = Files.write(dir.resolve("day2-twice.txt"), file.toByteArray());
        quipu.clock.set(DAY_2);
        EtlRun run = etl.run("padron", "--file", day2.toString());

        assertThat(run.exitCode()).as(run.stdout()).isZero();
        assertThat(run.stdout()).startsWith("padron succeeded: read 3009, written 3006, rejected 3,");
        assertThat(changesOf(run.runId()))
                .containsExactly(LAST_WINS + " changed", NEW_TWICE + " added");
        assertThat(quipu.database.texts("select ruc || ' ' || estado || ' ' || razon_social from ruc_registry"
                + " where ruc in (?, ?, ?) order by ruc", LAST_WINS, BACK_AGAIN, NEW_TWICE)).containsExactly(
                LAST_WINS + " SUSPENSION TEMPORAL PUKA RUMI E.I.R.L.", BACK_AGAIN + " ACTIVO YURAQ WASI S.A.",
                NEW_TWICE + " ACTIVO MUSUQ NAN S.A.");
        @SuppressWarnings("unchecked")
        List<String> sample = (List<String>) etl.stepContext(run.runId(), "stage").get("rejected.sample");
        assertThat(sample).hasSize(3).allMatch(s -> s.contains("already appeared on an earlier line"))
                .anyMatch(s -> s.contains("RUC " + NEW_TWICE));
        // The next load of the same file finds every line as loaded: nothing staged but the repeated RUCs' lines.
        EtlRun again = etl.run("padron", "--file", day2.toString());
        assertThat(again.exitCode()).as(again.stdout()).isZero();
        assertThat(changesOf(again.runId())).isEmpty();
        assertThat(etl.stepContext(again.runId(), "stage")).containsEntry(PadronJob.UNCHANGED_LINES, 3003L);
    }

    @Test
    void a_first_load_goes_straight_into_the_new_registry_and_keeps_the_last_line_of_a_repeated_ruc() throws Exception {
        ByteArrayOutputStream file = new ByteArrayOutputStream();
        day1().write(file);
        file.writeBytes(line(FIRST_KEPT, "HATUN MAYU S.A.", "BAJA DE OFICIO").getBytes(StandardCharsets.ISO_8859_1));
        quipu.clock.set(DAY_1);
        EtlRun first = etl.run("padron", "--file", Files.write(dir.resolve("first-twice.txt"), file.toByteArray())
                .toString());

        assertThat(first.exitCode()).as(first.stdout()).isZero();
        assertThat(first.stdout()).startsWith("padron succeeded: read 3006, written 3005, rejected 1,");
        assertThat(etl.stepContext(first.runId(), "stage")).containsKey(PadronJob.FIRST_LOAD_AT);
        assertThat(quipu.database.texts("select razon_social || ' ' || estado || ' ' || actualizado"
                + " from ruc_registry where ruc = ?", FIRST_KEPT))
                .containsExactly("HATUN MAYU S.A. BAJA DE OFICIO " + quipu.database.texts(
                        "select cast(? as timestamptz)::text", DAY_1).getFirst());
        // Shaped as the registry, with its constraints, indexes and triggers; nothing left behind.
        assertThat(quipu.database.texts("select count(*) || ' ' || count(distinct ruc) || ' ' || count(line_hash)"
                + " from ruc_registry")).containsExactly("3005 3005 3005");
        assertThat(quipu.database.texts("select indexname from pg_indexes where tablename = 'ruc_registry'"
                + " order by indexname")).containsExactly("ruc_registry_pkey", "ruc_registry_search_0",
                "ruc_registry_search_1");
        assertThat(quipu.database.texts("select conname from pg_constraint where conrelid = 'ruc_registry'::regclass"
                + " and contype = 'p'")).containsExactly("ruc_registry_pkey");
        assertThat(quipu.database.texts("select tablename from pg_tables where tablename like 'ruc_registry_%'"
                + " order by tablename")).containsExactly("ruc_registry_words");
        assertThat(quipu.database.texts("select count(*) from pg_trigger where tgrelid = 'ruc_registry'::regclass"
                + " and not tgisinternal")).containsExactly("6");
    }

    @Test
    void a_record_written_since_its_line_was_loaded_is_compared_by_its_content() throws Exception {
        PadronDay day1 = day1();
        Path file = loadDay1(day1);
        // Another writer (the bundled sample, an operator) changes a record: its line is no longer known.
        quipu.database.jdbi().useTransaction(h -> RegistryUpsert.upsert(h, List.of(PadronLine.parse(
                line(EDITED, "QORI CHASKA S.A.C.", "BAJA PROV. POR OFICIO").strip())), DAY_1.plusSeconds(60)));
        assertThat(quipu.database.texts("select line_hash is null from ruc_registry where ruc = ?", EDITED))
                .containsExactly("t");

        quipu.clock.set(DAY_2);
        EtlRun run = etl.run("padron", "--file", file.toString());

        assertThat(run.exitCode()).as(run.stdout()).isZero();
        assertThat(changesOf(run.runId())).containsExactly(EDITED + " changed");
        assertThat(quipu.json.readTree(quipu.database.texts("select changes::text from ruc_changes where load_run_id = ?",
                run.runId()).getFirst())).isEqualTo(quipu.json.readTree(
                "{\"estado\": {\"from\": \"BAJA PROV. POR OFICIO\", \"to\": \"ACTIVO\"}}"));
        assertThat(quipu.database.texts("select estado || ' ' || (line_hash is not null) from ruc_registry"
                + " where ruc = ?", EDITED)).containsExactly("ACTIVO true");
    }

    @Test
    void comparing_every_line_in_the_database_publishes_the_same_as_comparing_the_changed_lines() throws Exception {
        PadronDay day1 = day1();
        loadDay1(day1);
        PadronDay day2 = day1.next().set(LAST_WINS, 2, "BAJA DE OFICIO").set(FIRST_KEPT, 1, "HATUN MAYU S.A.")
                .remove(GONE).put(NEW_TWICE, "MUSUQ NAN S.A.C.", "ACTIVO", "HABIDO", "150101");
        // Without the lines in service (a registry too large for the heap), as the job then does.
        PadronStager.dropLeftovers(quipu.database.jdbi());
        PadronStager.Result staged = new PadronStager(quipu.database.jdbi()).stage(
                new ByteArrayInputStream(day2.bytes()), null, () -> false, Progress.none());
        assertThat(staged.changedLinesOnly()).isFalse();
        Instant now = DAY_2.truncatedTo(ChronoUnit.MICROS);
        RegistryPublisher.Published published = new RegistryPublisher(quipu.database.jdbi(), true, 0.05,
                Progress.none()).publish(now, 990_001, staged.staged().staged(), false);

        assertThat(published.how()).isEqualTo(Publication.DIFFERENCE);
        assertThat(List.of(published.added(), published.changed(), published.removed())).containsExactly(1L, 2L, 1L);
        assertThat(changesOf(990_001)).containsExactly(
                FIRST_KEPT + " changed", LAST_WINS + " changed", NEW_TWICE + " added", GONE + " removed");
        assertThat(quipu.database.texts("select count(*) || ' ' || count(line_hash) from ruc_registry"))
                .containsExactly("3005 3005");
        // And the next load, with the lines in service again, finds every line as loaded.
        EtlRun again = etl.run("padron", "--file", Files.write(dir.resolve("day2.txt"), day2.bytes()).toString());
        assertThat(again.exitCode()).as(again.stdout()).isZero();
        assertThat(changesOf(again.runId())).isEmpty();
        assertThat(etl.stepContext(again.runId(), "stage")).containsEntry(PadronJob.UNCHANGED_LINES, 3005L);
    }

    /**
     * A registry whose fingerprints another function made (MD5's, before December 2026): its next load finds no line
     * as loaded, compares every line by its content, records nothing and moves no record's actualizado, and rewrites
     * the fingerprints, so that the load after it finds every line as loaded again.
     */
    @Test
    void fingerprints_of_another_function_cost_one_slower_load_and_change_nothing() throws Exception {
        PadronDay day1 = day1();
        Path file = loadDay1(day1);
        List<String> before = quipu.database.texts("select ruc || ' ' || actualizado from ruc_registry order by ruc");
        quipu.database.jdbi().useHandle(h -> h.execute(
                "update ruc_registry set line_hash = line_hash # 6148914691236517205"));

        quipu.clock.set(DAY_2);
        EtlRun upgrade = etl.run("padron", "--file", file.toString());

        assertThat(upgrade.exitCode()).as(upgrade.stdout()).isZero();
        assertThat(etl.stepContext(upgrade.runId(), "stage")).containsEntry(PadronJob.UNCHANGED_LINES, 0L);
        assertThat(changesOf(upgrade.runId())).isEmpty();
        assertThat(quipu.database.texts("select ruc || ' ' || actualizado from ruc_registry order by ruc"))
                .isEqualTo(before);
        EtlRun next = etl.run("padron", "--file", file.toString());
        assertThat(next.exitCode()).as(next.stdout()).isZero();
        assertThat(etl.stepContext(next.runId(), "stage")).containsEntry(PadronJob.UNCHANGED_LINES, 3005L);
        assertThat(changesOf(next.runId())).isEmpty();
    }

    /**
     * The registry's lines read in parts at once (each a range of the table's pages, in one exported snapshot) are
     * the lines one read finds: every record once, with its fingerprint, whichever part its page fell in.
     */
    @Test
    void the_registry_read_in_parts_is_the_registry_read_whole() throws Exception {
        PadronDay day1 = day1();
        loadDay1(day1);
        // Some records elsewhere in the table's pages, and one whose line is not known.
        quipu.database.jdbi().useHandle(h -> h.execute("update ruc_registry set line_hash = line_hash"
                + " where ruc like '%7'"));
        quipu.database.jdbi().useTransaction(h -> RegistryUpsert.upsert(h, List.of(PadronLine.parse(
                line(EDITED, "QORI CHASKA S.A.C.", "BAJA PROV. POR OFICIO").strip())), DAY_1.plusSeconds(60)));
        List<String> records = quipu.database.texts("select ruc || ' ' || coalesce(line_hash, 0) from ruc_registry");
        assertThat(quipu.database.texts("select pg_relation_size('ruc_registry') / 8192 >= 4")).containsExactly("t");

        RegistryLines whole = RegistryLines.read(quipu.database.jdbi(), 1, 1);
        RegistryLines inParts = RegistryLines.read(quipu.database.jdbi(), 4, 1);

        assertThat(inParts.size()).isEqualTo(whole.size()).isEqualTo(records.size());
        for (String record : records) {
            String[] ruc = record.split(" ");
            byte[] bytes = ruc[0].getBytes(StandardCharsets.ISO_8859_1);
            long hash = Long.parseLong(ruc[1]);
            for (RegistryLines lines : List.of(whole, inParts)) {
                assertThat(lines.find(bytes, 0)).as(record).isNotNegative();
                assertThat(lines.sameLine(hash)).as(record).isEqualTo(hash != 0);
            }
        }
    }
}
