package pe.quipu.etl.sunat;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import pe.quipu.etl.generate.SunatListsGenerator;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.testing.PadronFixtures;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.core.ruc.Ruc;
import pe.quipu.etl.QuipuEtl;
import pe.quipu.etl.generate.PadronGenerator;
import pe.quipu.etl.testing.EtlRun;
import pe.quipu.etl.testing.EtlRunner;
import pe.quipu.etl.testing.ProgressLog;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The five jobs of SUNAT's lists and premises end to end: files in SUNAT's format through {@code quipu-etl <job>} on
 * the test app's database. Each test starts from empty lists and premises and leaves them empty.
 */
class SunatJobsTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();
    private static final EtlRunner etl = new EtlRunner(quipu.clock, quipu.bcrp, quipu.database);
    private static final String SUMMARY = "%s %s: read %d, written %d, rejected %d, in \\d+\\.\\d s \\(run \\d+\\)\n";
    private static final byte[] BOM = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};
    private static Path dir;

    @BeforeAll
    static void setUp() throws IOException {
        dir = Files.createTempDirectory("quipu-sunat-test-");
    }

    @BeforeEach
    void emptyTheLists() {
        clear();
    }

    @AfterAll
    static void cleanUp() throws IOException {
        clear();
        try (var paths = Files.walk(dir)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    @ParameterizedTest
    @EnumSource(value = SunatFile.class, names = "LOCALES_ANEXOS", mode = EnumSource.Mode.EXCLUDE)
    void a_list_with_its_header_reordered_and_extended_behind_a_bom_loads_with_its_latin1_accents(SunatFile file)
            throws Exception {
        List<String> header = List.of("Resolución", "A partir del", "Razón Social", "Observación", "RUC");
        List<Map<String, String>> rows = List.of(
                list("20100017491", "TELEFÓNICA DEL PERÚ S.A.A.", "01/06/2002", "R.S. Nº 037-2002/SUNAT"),
                list("20100227461", "PEÑA & CÁCERES S.A.C.", "15/11/2019", "R.S. 275-2019/SUNAT"),
                list("10452159428", "NÚÑEZ ÁLVAREZ MARÍA", "01/02/2024", "-"));
        Path path = write(file.jobName() + ".txt", header, rows, true);

        EtlRun run = etl.run(file.jobName(), "--file", path.toString());

        assertThat(run.exitCode()).as(run.stdout() + run.stderr()).isZero();
        assertThat(run.stdout()).matches(SUMMARY.formatted(file.jobName(), "succeeded", 3, 3, 0));
        assertThat(quipu.database.texts("select ruc || ' ' || desde || ' ' || coalesce(resolucion, 'null')"
                + " from sunat_padrones where padron = ? order by ruc", file.padron())).containsExactly(
                "10452159428 2024-02-01 null",
                "20100017491 2002-06-01 R.S. Nº 037-2002/SUNAT",
                "20100227461 2019-11-15 R.S. 275-2019/SUNAT");
        assertThat(quipu.database.texts("select rows::text from dataset_loads where dataset = ?", file.jobName()))
                .containsExactly("3");
        List<JsonNode> events = etl.events(run.runId());
        assertThat(events).extracting(e -> e.path("type").asText())
                .containsExactly("etl.run.started", "etl.run.succeeded");
        assertThat(events.get(1).path("data").path("job").asText()).isEqualTo(file.jobName());
        assertThat(events.get(1).path("data").path("rowsWritten").asLong()).isEqualTo(3);
        // Only this list was touched.
        assertThat(quipu.database.texts("select distinct padron from sunat_padrones")).containsExactly(file.padron());
    }

    @Test
    void premises_load_with_their_header_reordered_and_a_bom_and_keep_latin1_accents() throws Exception {
        List<String> header = new ArrayList<>(SunatFile.ANEXO_COLUMNS);
        java.util.Collections.reverse(header);
        header.set(header.indexOf("NOMBRE DE VIA"), "Nombre de Vía");
        header.add("FECHA ALTA");
        List<Map<String, String>> rows = List.of(
                anexo("20100227461", "150137", "AV.", "SEÑOR DE LUREN", "URB.", "ÁLAMOS", "495"),
                anexo("20100227461", "-", "----", "-", "-", "-", "-"),
                anexo("20100017491", "040101", "JR.", "CAÑETE", "-", "-", "12"));
        Path path = write("anexos.txt", header, rows, true);

        EtlRun run = etl.run("locales-anexos", "--file", path.toString());

        assertThat(run.exitCode()).as(run.stdout() + run.stderr()).isZero();
        assertThat(run.stdout()).matches(SUMMARY.formatted("locales-anexos", "succeeded", 3, 3, 0));
        assertThat(quipu.database.texts("select concat_ws(' ', ruc, coalesce(ubigeo, 'null'), tipo_via, nombre_via,"
                + " codigo_zona, tipo_zona, numero) from locales_anexos order by ruc, ubigeo nulls last")).containsExactly(
                "20100017491 040101 JR. CAÑETE 12",
                "20100227461 150137 AV. SEÑOR DE LUREN URB. ÁLAMOS 495",
                "20100227461 null");
        assertThat(quipu.database.texts("select rows::text from dataset_loads where dataset = 'locales-anexos'"))
                .containsExactly("3");
        // The swapped-in table tells the API instances of later changes, as the one it replaced did.
        assertThat(quipu.database.texts("select tgname from pg_trigger where tgrelid = 'locales_anexos'::regclass"
                + " and not tgisinternal")).containsExactly("locales_anexos_changed");
        assertThat(quipu.database.texts("select indexname from pg_indexes where tablename = 'locales_anexos'"))
                .containsExactly("locales_anexos_ruc");
    }

    @ParameterizedTest
    @EnumSource(SunatFile.class)
    void a_bad_ruc_and_a_bad_date_reject_their_lines_counted_and_sampled(SunatFile file) throws Exception {
        List<Map<String, String>> rows = new ArrayList<>();
        for (int i = 0; i < 3_000; i++) {
            rows.add(row(file, PadronGenerator.ruc("20", i), "01/03/2010"));
        }
        rows.add(row(file, "20100227462", "01/03/2010")); // wrong check digit
        rows.add(row(file, "2010022746", "01/03/2010")); // ten digits
        if (file.isList()) {
            rows.add(row(file, "20100227461", "31/02/2010")); // no such day
        } else {
            Map<String, String> badUbigeo = row(file, "20100227461", null);
            badUbigeo.put("UBIGEO", "15013");
            rows.add(badUbigeo);
        }
        Path path = write(file.jobName() + "-rejects.txt", header(file), rows, false);

        EtlRun run = etl.run(file.jobName(), "--file", path.toString());

        assertThat(run.exitCode()).as(run.stdout() + run.stderr()).isZero();
        assertThat(run.stdout()).matches(SUMMARY.formatted(file.jobName(), "succeeded", 3_003, 3_000, 3));
        JsonNode done = etl.events(run.runId()).get(1).path("data");
        assertThat(done.path("rowsRejected").asLong()).isEqualTo(3);
        assertThat(stageContext(run.runId())).contains("line 3002: invalid RUC: wrong check digit")
                .contains("line 3003: invalid RUC: a RUC is exactly 11 digits")
                .contains(file.isList() ? "line 3004: \"A partir del\" is not a date DD/MM/YYYY: 31/02/2010"
                        : "line 3004: UBIGEO is not 6 digits or '-': 15013");
        assertThat(rowsInService(file)).isEqualTo(3_000);
    }

    @Test
    void a_line_over_64_kib_fails_the_run_naming_it_and_the_list_in_service_stays() throws Exception {
        SunatFile file = SunatFile.BUENOS_CONTRIBUYENTES;
        Path good = write("long-line-good.txt", header(file), List.of(row(file, "20100227461", "01/01/2020")), false);
        assertThat(etl.run(file.jobName(), "--file", good.toString()).exitCode()).isZero();
        Path path = write("long-line.txt", header(file), List.of(row(file, "20100227461", "01/01/2020"),
                list("20100017491", "X".repeat(70_000), "01/01/2020", "R.S. 037-2002/SUNAT")), false);

        EtlRun run = etl.run(file.jobName(), "--file", path.toString());

        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.stdout()).startsWith(file.jobName() + " failed: ").contains("line 3 is over 65536 bytes")
                .hasLineCount(1);
        assertThat(contents(file)).containsExactly("20100227461 2020-01-01 R.S. 037-2002/SUNAT");
        assertThat(quipu.database.texts("select tablename::text from pg_tables where tablename like 'sunat_stage_%'"))
                .isEmpty();
    }

    @ParameterizedTest
    @EnumSource(SunatFile.class)
    void a_file_missing_a_required_column_is_refused_naming_it_and_the_data_in_service_stays(SunatFile file)
            throws Exception {
        Path good = write(file.jobName() + "-good.txt", header(file),
                List.of(row(file, "20100227461", "01/01/2020")), false);
        assertThat(etl.run(file.jobName(), "--file", good.toString()).exitCode()).isZero();
        String missing = file.isList() ? "A partir del" : "KILOMETRO";
        List<String> header = new ArrayList<>(header(file));
        header.remove(missing);
        Path path = write(file.jobName() + "-missing.txt", header,
                List.of(row(file, "20100017491", "01/01/2020")), false);

        EtlRun run = etl.run(file.jobName(), "--file", path.toString());

        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.stdout()).startsWith(file.jobName() + " failed: read 0, written 0, rejected 0,")
                .contains("the file has no column \"" + missing + "\"");
        assertThat(etl.events(run.runId())).extracting(e -> e.path("type").asText())
                .containsExactly("etl.run.started", "etl.run.failed");
        assertThat(rowsInService(file)).isOne();
        assertThat(quipu.database.texts("select tablename::text from pg_tables where tablename like 'sunat_stage_%'"
                + " or tablename like 'locales_anexos_%'")).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(SunatFile.class)
    void a_reload_that_changes_nothing_keeps_every_row_and_one_that_drops_a_ruc_takes_it_off(SunatFile file)
            throws Exception {
        List<Map<String, String>> rows = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            rows.add(row(file, PadronGenerator.ruc("20", i), "01/0" + (1 + i % 9) + "/2015"));
        }
        Path path = write(file.jobName() + "-20.txt", header(file), rows, false);
        assertThat(etl.run(file.jobName(), "--file", path.toString()).exitCode()).isZero();
        List<String> before = contents(file);
        assertThat(before).hasSize(20);

        EtlRun again = etl.run(file.jobName(), "--file", path.toString());
        assertThat(again.stdout()).matches(SUMMARY.formatted(file.jobName(), "succeeded", 20, 20, 0));
        assertThat(contents(file)).isEqualTo(before);

        String dropped = PadronGenerator.ruc("20", 7);
        Path smaller = write(file.jobName() + "-19.txt", header(file),
                rows.stream().filter(r -> !r.containsValue(dropped)).toList(), false);
        EtlRun third = etl.runKeeping(0.9, file.jobName(), "--file", smaller.toString());
        assertThat(third.stdout()).matches(SUMMARY.formatted(file.jobName(), "succeeded", 19, 19, 0));
        assertThat(contents(file)).hasSize(19).noneMatch(line -> line.startsWith(dropped))
                .isEqualTo(before.stream().filter(line -> !line.startsWith(dropped)).toList());
    }

    /**
     * A list's reload names its run: the API drops the answers with lists of the RUCs that joined or left, keeps the
     * others in memory, and answers the joiner's new list at once; a reload that gives a staying RUC another
     * {@code desde}, which the log does not record, drops them all.
     */
    @Test
    void a_list_reload_drops_only_the_included_answers_of_the_rucs_that_joined_or_left() throws Exception {
        PadronFixtures.load(quipu.database, QuipuExtension.START);
        List<String> sample = PadronFixtures.records().stream().map(r -> r.ruc().value()).limit(21).toList();
        SunatFile file = SunatFile.AGENTES_RETENCION;
        List<Map<String, String>> rows = new ArrayList<>();
        for (String ruc : sample.subList(0, 20)) {
            rows.add(row(file, ruc, "01/06/2015"));
        }
        assertThat(etl.run(file.jobName(), "--file", write("eviction-1.txt", header(file), rows, false).toString())
                .exitCode()).isZero();
        String key = quipu.accounts.newKey(Scope.RUC_READ);
        String stays = sample.get(1);
        String joins = sample.get(20);
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                assertThat(included(key, stays)).contains("agentes_retencion"));
        assertThat(included(key, joins)).contains("\"padrones\":[]");

        rows.add(row(file, joins, "01/07/2015"));
        assertThat(etl.run(file.jobName(), "--file", write("eviction-2.txt", header(file), rows, false).toString())
                .exitCode()).isZero();

        await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                assertThat(included(key, joins)).contains("agentes_retencion"));
        long hits = includedHits();
        assertThat(included(key, stays)).contains("agentes_retencion");
        assertThat(includedHits()).as("the RUC that stayed, from memory").isEqualTo(hits + 1);

        rows.set(1, row(file, stays, "01/08/2015"));
        assertThat(etl.run(file.jobName(), "--file", write("eviction-3.txt", header(file), rows, false).toString())
                .exitCode()).isZero();
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                assertThat(included(key, stays)).contains("2015-08-01"));
    }

    private static String included(String key, String ruc) {
        HttpResponse<String> answer = quipu.get("/v1/ruc/" + ruc + "?include=padrones", key);
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        return answer.body();
    }

    private static long includedHits() {
        return ((Number) quipu.environment().metrics().getGauges().get("pe.quipu.api.ruc.Rucs.included.hits")
                .getValue()).longValue();
    }

    @ParameterizedTest
    @EnumSource(value = SunatFile.class, names = {"AGENTES_RETENCION", "LOCALES_ANEXOS"})
    void a_file_much_smaller_than_the_copy_in_service_or_mostly_rejects_is_refused(SunatFile file) throws Exception {
        List<Map<String, String>> rows = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            rows.add(row(file, PadronGenerator.ruc("20", i), "01/01/2020"));
        }
        Path full = write(file.jobName() + "-100.txt", header(file), rows, false);
        assertThat(etl.runKeeping(0.9, file.jobName(), "--file", full.toString()).exitCode()).isZero();

        Path cut = write(file.jobName() + "-50.txt", header(file), rows.subList(0, 50), false);
        EtlRun truncated = etl.runKeeping(0.9, file.jobName(), "--file", cut.toString());
        assertThat(truncated.exitCode()).isEqualTo(1);
        assertThat(truncated.stdout()).contains("the file holds 50 rows, 50.0 % of the 100 in service")
                .contains("etl.minRetainedShare");
        assertThat(rowsInService(file)).isEqualTo(100);

        List<Map<String, String>> bad = new ArrayList<>(rows);
        bad.add(row(file, "20100227462", "01/01/2020"));
        Path rejects = write(file.jobName() + "-bad.txt", header(file), bad, false);
        EtlRun refused = etl.run(file.jobName(), "--file", rejects.toString());
        assertThat(refused.exitCode()).isEqualTo(1);
        assertThat(refused.stdout()).contains("1 of 101 lines rejected").contains("etl.maxRejectedShare");
        assertThat(rowsInService(file)).isEqualTo(100);
        assertThat(quipu.database.texts("select tablename::text from pg_tables where tablename like 'sunat_stage_%'"
                + " or tablename like 'locales_anexos_%'")).isEmpty();

        // Allowed on purpose, the smaller file replaces the copy in service.
        assertThat(etl.run(file.jobName(), "--file", cut.toString()).exitCode()).isZero();
        assertThat(rowsInService(file)).isEqualTo(50);
    }

    @Test
    void the_generated_files_load_and_refer_to_the_generated_padrons_rucs() throws Exception {
        Path padron = dir.resolve("padron.txt");
        PadronGenerator.write(padron, 3_000, 11);
        Map<SunatFile, Path> files = SunatListsGenerator.write(dir.resolve("generated"), 3_000, 11);
        java.util.Set<String> registry = new java.util.HashSet<>();
        for (String line : Files.readAllLines(padron, StandardCharsets.ISO_8859_1).subList(1, 3_001)) {
            registry.add(line.substring(0, 11));
        }
        for (Map.Entry<SunatFile, Path> generated : files.entrySet()) {
            SunatFile file = generated.getKey();
            assertThat(generated.getValue().getFileName().toString()).isEqualTo(file.published());
            EtlRun run;
            List<String> phases;
            try (ProgressLog progress = new ProgressLog()) {
                run = etl.run(file.jobName(), "--file", generated.getValue().toString());
                phases = progress.phaseEnds().stream().map(l -> l.replaceAll(" done in .*", "")).toList();
            }
            assertThat(run.exitCode()).as(run.stdout() + run.stderr()).isZero();
            assertThat(run.stdout()).contains("rejected 0,");
            assertThat(rowsInService(file)).as(file.jobName()).isPositive();
            String job = file.jobName() + ": ";
            assertThat(phases).as("the phases' last lines").containsExactlyElementsOf(file.isList()
                    ? List.of(job + "stage", job + "compare", job + "publish")
                    : List.of(job + "stage", job + "publish", job + "index"));
        }
        assertThat(quipu.database.texts("select ruc from sunat_padrones union select ruc from locales_anexos"))
                .allMatch(registry::contains);
        // Real ubigeos of the catalogue, and names with the padrón's accents.
        assertThat(quipu.database.texts("select count(*)::text from locales_anexos a"
                + " where a.ubigeo is not null and not exists (select 1 from ubigeos u where u.code = a.ubigeo)"))
                .containsExactly("0");
        assertThat(quipu.database.texts("select count(*)::text from locales_anexos where nombre_via ~ '[ÑÁ]'"))
                .doesNotContain("0");
        // The same rows and seed give the same bytes.
        Map<SunatFile, Path> again = SunatListsGenerator.write(dir.resolve("again"), 3_000, 11);
        for (SunatFile file : SunatFile.values()) {
            assertThat(Files.readAllBytes(again.get(file))).isEqualTo(Files.readAllBytes(files.get(file)));
        }
        String agentes = new String(unzip(files.get(SunatFile.AGENTES_RETENCION)), StandardCharsets.ISO_8859_1);
        assertThat(agentes).startsWith("Ruc|Razon Social|A partir del|Resolucion|\r\n")
                .containsPattern("\\r\\n20\\d{9}\\|[^|]+\\|01/\\d\\d/20\\d\\d\\|R\\.S\\. \\d+-20\\d\\d/SUNAT\\|\\r\\n");
    }

    // --- files in SUNAT's format

    private static List<String> header(SunatFile file) {
        return file.isList() ? List.of("Ruc", "Razon Social", "A partir del", "Resolucion") : SunatFile.ANEXO_COLUMNS;
    }

    private static Map<String, String> row(SunatFile file, String ruc, String desde) {
        return file.isList() ? list(ruc, "EMPRESA " + ruc.substring(5) + " S.A.C.", desde, "R.S. 037-2002/SUNAT")
                : anexo(ruc, "150101", "AV.", "VÍA " + ruc.substring(5), "-", "-", "1" + ruc.substring(8));
    }

    @ParameterizedTest
    @EnumSource(value = SunatFile.class, names = {"AGENTES_RETENCION", "LOCALES_ANEXOS"})
    void a_run_canceled_the_way_sigterm_does_ends_canceled_and_the_data_in_service_stays(SunatFile file)
            throws Exception {
        List<String> header = new ArrayList<>(file.isList() ? List.of("Ruc", "Razon Social", "A partir del",
                "Resolucion") : SunatFile.ANEXO_COLUMNS);
        Map<String, String> kept = file.isList() ? list("20100017491", "TELEFÓNICA DEL PERÚ S.A.A.", "01/06/2002",
                "R.S. 037-2002/SUNAT") : anexo("20100017491", "040101", "JR.", "CAÑETE", "-", "-", "12");
        EtlRun before = etl.run(file.jobName(), "--file", write("kept.txt", header, List.of(kept), false).toString());
        assertThat(before.exitCode()).as(before.stdout() + before.stderr()).isZero();
        String table = file.isList() ? "sunat_padrones" : "locales_anexos";

        // A named pipe as the file: valid lines keep coming until the run is canceled and stops reading.
        Path fifo = dir.resolve(file.jobName() + ".fifo");
        assertThat(new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor()).isZero();
        AtomicBoolean done = new AtomicBoolean();
        Thread writer = Thread.ofPlatform().start(() -> {
            try (OutputStream out = Files.newOutputStream(fifo)) {
                out.write((String.join("|", header) + "|\r\n").getBytes(StandardCharsets.ISO_8859_1));
                for (int i = 0; !done.get(); i++) {
                    String ruc = Ruc.completing("20" + (10_000_000 + i)).value();
                    out.write(line(header, file.isList() ? list(ruc, "X", "01/01/2020", "R.S. 1")
                            : anexo(ruc, "150101", "AV.", "LIMA", "-", "-", Integer.toString(i))));
                }
            } catch (IOException ignored) {
                // the reading side went away: expected once the run is canceled
            }
        });
        EtlRun run;
        try {
            run = etl.runCanceledWhen(() -> !quipu.database.texts("select 1 from pg_tables where tablename = ?",
                    file.stage()).isEmpty(), file.jobName(), "--file", fifo.toString());
        } finally {
            done.set(true);
            writer.join(Duration.ofSeconds(10));
        }

        assertThat(run.exitCode()).as(run.stderr()).isEqualTo(QuipuEtl.CANCELED);
        assertThat(run.stdout()).startsWith(file.jobName() + " canceled: ");
        assertThat(etl.events(run.runId())).extracting(e -> e.path("type").asText())
                .containsExactly("etl.run.started", "etl.run.canceled");
        assertThat(quipu.database.texts("select ruc from " + table)).containsExactly("20100017491");
        assertThat(quipu.database.texts("select tablename from pg_tables where tablename like 'sunat_stage_%'"
                + " or tablename like 'locales_anexos_%'")).isEmpty();
    }

    private static Map<String, String> list(String ruc, String name, String desde, String resolucion) {
        Map<String, String> row = new LinkedHashMap<>();
        row.put("Ruc", ruc);
        row.put("Razon Social", name);
        row.put("A partir del", desde);
        row.put("Resolucion", resolucion);
        return row;
    }

    private static Map<String, String> anexo(String ruc, String ubigeo, String tipoVia, String nombreVia,
                                             String codigoZona, String tipoZona, String numero) {
        Map<String, String> row = new LinkedHashMap<>();
        row.put("RUC", ruc);
        row.put("UBIGEO", ubigeo);
        row.put("TIPO DE VIA", tipoVia);
        row.put("NOMBRE DE VIA", nombreVia);
        row.put("CODIGO DE ZONA", codigoZona);
        row.put("TIPO DE ZONA", tipoZona);
        row.put("NUMERO", numero);
        row.put("KILOMETRO", "-");
        row.put("INTERIOR", "-");
        row.put("LOTE", "-");
        row.put("DEPARTAMENTO", "-");
        row.put("MANZANA", "-");
        return row;
    }

    /** The file with these header titles; each row's value for a title is found by the title's normal form. */
    /** A line of {@code row}'s values under {@code header} (X for a column it has no value for), in Latin-1. */
    private static byte[] line(List<String> header, Map<String, String> row) {
        StringBuilder line = new StringBuilder();
        for (String title : header) {
            String value = row.entrySet().stream()
                    .filter(e -> SunatColumns.normalize(e.getKey()).equals(SunatColumns.normalize(title)))
                    .map(Map.Entry::getValue).findFirst().orElse("X");
            line.append(value == null ? "-" : value).append('|');
        }
        return (line + "\r\n").getBytes(StandardCharsets.ISO_8859_1);
    }

    private static Path write(String name, List<String> header, List<Map<String, String>> rows, boolean bom)
            throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        if (bom) {
            out.write(BOM);
        }
        out.write((String.join("|", header) + "|\r\n").getBytes(StandardCharsets.ISO_8859_1));
        for (Map<String, String> row : rows) {
            out.write(line(header, row));
        }
        Path path = dir.resolve(name);
        Files.write(path, out.toByteArray());
        return path;
    }

    private static byte[] unzip(Path zip) throws IOException {
        try (var in = new java.util.zip.ZipInputStream(Files.newInputStream(zip))) {
            in.getNextEntry();
            return in.readAllBytes();
        }
    }

    // --- what is in service

    private static long rowsInService(SunatFile file) {
        List<String> count = file.isList()
                ? quipu.database.texts("select count(*)::text from sunat_padrones where padron = ?", file.padron())
                : quipu.database.texts("select count(*)::text from locales_anexos");
        return Long.parseLong(count.getFirst());
    }

    private static List<String> contents(SunatFile file) {
        return file.isList()
                ? quipu.database.texts("select concat_ws(' ', ruc, desde, resolucion) from sunat_padrones"
                + " where padron = ? order by ruc", file.padron())
                : quipu.database.texts("select concat_ws(' ', ruc, ubigeo, tipo_via, nombre_via, numero)"
                + " from locales_anexos order by 1");
    }

    private static String stageContext(long runId) {
        String context = quipu.database.texts("""
                select short_context from batch_step_execution_context x
                  join batch_step_execution s on s.step_execution_id = x.step_execution_id
                 where s.job_execution_id = ? and s.step_name = 'stage'""", runId).getFirst();
        try {
            return new String(java.util.Base64.getDecoder().decode(context), StandardCharsets.ISO_8859_1);
        } catch (IllegalArgumentException notBase64) {
            return context;
        }
    }

    private static void clear() {
        quipu.database.jdbi().useHandle(h -> {
            h.execute("delete from sunat_padrones");
            h.execute("delete from locales_anexos");
            h.execute("delete from dataset_loads where dataset in ('agentes-retencion', 'buenos-contribuyentes',"
                    + " 'agentes-percepcion', 'agentes-percepcion-combustibles', 'locales-anexos')");
        });
    }
}
