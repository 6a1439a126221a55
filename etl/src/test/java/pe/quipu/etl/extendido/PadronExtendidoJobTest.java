package pe.quipu.etl.extendido;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.testing.PadronFixtures;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.core.ruc.Ruc;
import pe.quipu.core.testing.BcrpStub.Answer;
import pe.quipu.etl.testing.EtlRun;
import pe.quipu.etl.testing.EtlRunner;
import pe.quipu.etl.testing.ProgressLog;

import java.io.OutputStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code padron-extendido} job over the 61 real sample records, then what the API answers for them. Other
 * test classes expect the sample with {@code tipo} and {@code ciiu} null and {@code actualizado} as loaded, so
 * every test puts those back when it ends.
 */
class PadronExtendidoJobTest {

    private static final String HEADER = "RUC,Estado,Condicion,Tipo,Actividad_Economica_CIIU_revision3_Principal,"
            + "Actividad_Economica_CIIU_revision3_Secundaria,Actividad_Economica_CIIU_revision4_Principal,NroTrab,"
            + "TipoFacturacion,TipoContabilidad,ComercioExterior,UBIGEO,Departamento,Provincia,Distrito,"
            + "PERIODO_PUBLICACION";
    private static final Instant RUN_AT = QuipuExtension.START.plus(Duration.ofDays(3));

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();
    private static final EtlRunner etl = new EtlRunner(quipu.clock, quipu.bcrp, quipu.database);

    private final String key = quipu.accounts.newKey(Scope.RUC_READ);
    private final List<String> sample = PadronFixtures.records().stream().map(r -> r.ruc().value()).toList();
    private final Map<String, Instant> loadedAt = new LinkedHashMap<>();
    private final List<Path> files = new ArrayList<>();

    @BeforeEach
    void loadSample() throws Exception {
        PadronFixtures.load(quipu.database, QuipuExtension.START);
        try (Connection c = quipu.database.connection(); PreparedStatement q = c.prepareStatement(
                "select ruc, actualizado, tipo, ciiu from ruc_registry where ruc = any(?)")) {
            q.setArray(1, c.createArrayOf("text", sample.toArray()));
            try (ResultSet rs = q.executeQuery()) {
                while (rs.next()) {
                    assertThat(rs.getString("tipo")).isNull();
                    assertThat(rs.getString("ciiu")).isNull();
                    loadedAt.put(rs.getString(1), rs.getObject(2, OffsetDateTime.class).toInstant());
                }
            }
        }
        assertThat(loadedAt).hasSize(sample.size());
        quipu.clock.set(RUN_AT);
    }

    @AfterEach
    void restoreSample() throws Exception {
        quipu.clock.set(QuipuExtension.START);
        try (Connection c = quipu.database.connection(); PreparedStatement u = c.prepareStatement(
                "update ruc_registry set tipo = null, ciiu = null, actualizado = ? where ruc = ?")) {
            for (Map.Entry<String, Instant> e : loadedAt.entrySet()) {
                u.setObject(1, e.getValue().atOffset(ZoneOffset.UTC));
                u.setString(2, e.getKey());
                u.addBatch();
            }
            u.executeBatch();
        }
        for (Path file : files) {
            Files.deleteIfExists(file);
        }
    }

    @Test
    void the_csv_fills_tipo_and_ciiu_and_only_changed_records_get_a_new_actualizado_and_etag() throws Exception {
        String r0 = sample.get(0);
        String r1 = sample.get(1);
        String r2 = sample.get(2);
        String r3 = sample.get(3);
        String r4 = sample.get(4);
        Map<String, String> before = etags(r0, r1, r2, r3, r4);
        List<String> lines = new ArrayList<>(List.of(HEADER,
                r0 + ",ACTIVO,HABIDO,SOCIEDAD ANONIMA CERRADA,51906,NO DISPONIBLE,46900,5,MANUAL,MANUAL,SIN ACTIVIDAD,150101,LIMA,LIMA,LIMA,202609",
                // A code with its description, quoted since it holds a comma; spaces around the type.
                r1 + ",ACTIVO,HABIDO,  EMPRESA INDIVIDUAL DE RESP. LTDA ,NO DISPONIBLE,NO DISPONIBLE,"
                        + "\"47110 - VENTA AL POR MENOR EN COMERCIOS NO ESPECIALIZADOS, CON PREDOMINIO DE ALIMENTOS\","
                        + "NO DISPONIBLE,MANUAL,MANUAL,SIN ACTIVIDAD,150101,LIMA,LIMA,LIMA,202609",
                r2 + ",ACTIVO,HABIDO,PERSONA NATURAL CON NEGOCIO,NO DISPONIBLE,NO DISPONIBLE,NO DISPONIBLE,1,MANUAL,MANUAL,SIN ACTIVIDAD,NO DISPONIBLE,,,,202609",
                r3 + ",ACTIVO,HABIDO,NO DISPONIBLE,NO DISPONIBLE,NO DISPONIBLE,NO DISPONIBLE,NO DISPONIBLE,,,,,,,,202609",
                // Malformed: a field short, and a wrong check digit.
                "20100070970,ACTIVO,HABIDO,SOCIEDAD ANONIMA,1,2,46900,5,MANUAL,MANUAL,SIN ACTIVIDAD,150101,LIMA,LIMA,202609",
                "20100070971,ACTIVO,HABIDO,SOCIEDAD ANONIMA,1,2,46900,5,MANUAL,MANUAL,SIN ACTIVIDAD,150101,LIMA,LIMA,LIMA,202609"));
        // RUCs the registry does not hold (most of the real file): counted, not inserted, and they keep the
        // two rejected lines under etl.maxRejectedShare (0.1 %).
        List<String> unknown = unknownRucs(3000);
        for (String ruc : unknown) {
            lines.add(ruc + ",ACTIVO,HABIDO,SOCIEDAD ANONIMA,NO DISPONIBLE,NO DISPONIBLE,46900,NO DISPONIBLE,,,,,,,,202609");
        }
        Path csv = write(String.join("\r\n", lines) + "\r\n", ".csv");

        EtlRun run = etl.run("padron-extendido", "--file", csv.toString());

        assertThat(run.exitCode()).as(run.stdout() + run.stderr()).isZero();
        assertThat(run.stdout()).startsWith("padron-extendido succeeded: read 3006, written 3, rejected 2, in ");
        List<JsonNode> events = etl.events(run.runId());
        assertThat(events).extracting(e -> e.path("type").asText())
                .containsExactly("etl.run.started", "etl.run.succeeded");
        JsonNode data = events.get(1).path("data");
        assertThat(data.path("job").asText()).isEqualTo("padron-extendido");
        assertThat(data.path("rowsRead").asLong()).isEqualTo(3006);
        assertThat(data.path("rowsWritten").asLong()).isEqualTo(3);
        assertThat(data.path("rowsRejected").asLong()).isEqualTo(2);

        JsonNode b0 = record(r0);
        assertThat(b0.path("tipo").asText()).isEqualTo("SOCIEDAD ANONIMA CERRADA");
        assertThat(b0.path("ciiu").asText()).isEqualTo("46900");
        assertThat(b0.path("actualizado").asText()).isEqualTo(RUN_AT.toString());
        JsonNode b1 = record(r1);
        assertThat(b1.path("tipo").asText()).isEqualTo("EMPRESA INDIVIDUAL DE RESP. LTDA");
        assertThat(b1.path("ciiu").asText()).isEqualTo("47110");
        JsonNode b2 = record(r2);
        assertThat(b2.path("tipo").asText()).isEqualTo("PERSONA NATURAL CON NEGOCIO");
        assertThat(b2.path("ciiu").isNull()).isTrue();
        assertThat(b2.path("actualizado").asText()).isEqualTo(RUN_AT.toString());
        for (String unchanged : List.of(r3, r4)) {
            JsonNode body = record(unchanged);
            assertThat(body.path("tipo").isNull()).isTrue();
            assertThat(body.path("ciiu").isNull()).isTrue();
            assertThat(body.path("actualizado").asText()).isEqualTo(loadedAt.get(unchanged).toString());
        }
        Map<String, String> after = etags(r0, r1, r2, r3, r4);
        for (String changed : List.of(r0, r1, r2)) {
            assertThat(after.get(changed)).isNotEqualTo(before.get(changed));
        }
        assertThat(after.get(r3)).isEqualTo(before.get(r3));
        assertThat(after.get(r4)).isEqualTo(before.get(r4));
        assertThat(unknownRucsInRegistry(unknown)).isZero();

        // The same file again, later: nothing changes.
        quipu.clock.advance(Duration.ofDays(1));
        EtlRun again = etl.run("padron-extendido", "--file", csv.toString());
        assertThat(again.exitCode()).as(again.stdout() + again.stderr()).isZero();
        assertThat(again.stdout()).startsWith("padron-extendido succeeded: read 3006, written 0, rejected 2");
        assertThat(etags(r0, r1, r2, r3, r4)).isEqualTo(after);
        assertThat(record(r0).path("actualizado").asText()).isEqualTo(RUN_AT.toString());
    }

    @Test
    void an_older_pipe_delimited_edition_in_a_zip_loads_the_same_way() throws Exception {
        String r5 = sample.get(5);
        String r6 = sample.get(6);
        String before = etags(r6).get(r6);
        String csv = HEADER.replace(',', '|') + "\n"
                + r5 + "|ACTIVO|HABIDO|SOCIEDAD COMERCIAL DE RESPONS. LTDA|NO DISPONIBLE|NO DISPONIBLE|"
                + "4520 - MANTENIMIENTO Y REPARACION DE VEHICULOS AUTOMOTORES|2|MANUAL|MANUAL|SIN ACTIVIDAD|150101|LIMA|LIMA|LIMA|201712\n"
                + r6 + "|ACTIVO|HABIDO|NO DISPONIBLE|NO DISPONIBLE|NO DISPONIBLE|NO DISPONIBLE|NO DISPONIBLE||||||||201712\n";
        Path zip = Files.createTempFile("PadronRUC_201712-", ".zip");
        files.add(zip);
        try (OutputStream out = Files.newOutputStream(zip); ZipOutputStream z = new ZipOutputStream(out)) {
            z.putNextEntry(new ZipEntry("PadronRUC_201712.csv"));
            z.write(csv.getBytes(StandardCharsets.UTF_8));
            z.closeEntry();
        }

        EtlRun run = etl.run("padron-extendido", "--file", zip.toString());

        assertThat(run.exitCode()).as(run.stdout() + run.stderr()).isZero();
        assertThat(run.stdout()).startsWith("padron-extendido succeeded: read 2, written 1, rejected 0");
        JsonNode b5 = record(r5);
        assertThat(b5.path("tipo").asText()).isEqualTo("SOCIEDAD COMERCIAL DE RESPONS. LTDA");
        assertThat(b5.path("ciiu").asText()).isEqualTo("4520");
        assertThat(etags(r6).get(r6)).isEqualTo(before);
    }

    @Test
    void a_url_is_downloaded_then_loaded() throws Exception {
        String r7 = sample.get(7);
        String csv = HEADER + "\n" + r7 + ",ACTIVO,HABIDO,ASOCIACION,NO DISPONIBLE,NO DISPONIBLE,94990,"
                + "NO DISPONIBLE,,,,,,,,202609\n";
        quipu.bcrp.respond(path -> path.endsWith("/PadronRUC_202609.csv")
                ? new Answer(200, "text/csv", csv, 0) : new Answer(404, "text/plain", "no", 0));

        EtlRun run;
        try (ProgressLog progress = new ProgressLog()) {
            run = etl.run("padron-extendido", "--url", quipu.bcrp.baseUrl() + "/PadronRUC_202609.csv");
            assertThat(progress.phaseEnds()).extracting(l -> l.replaceAll(" done in .*", "")).containsExactly(
                    "padron-extendido: download", "padron-extendido: stage", "padron-extendido: index",
                    "padron-extendido: publish");
        }

        assertThat(run.exitCode()).as(run.stdout() + run.stderr()).isZero();
        assertThat(record(r7).path("tipo").asText()).isEqualTo("ASOCIACION");
        assertThat(record(r7).path("ciiu").asText()).isEqualTo("94990");
    }

    @Test
    void too_many_rejected_lines_fail_the_run_and_change_nothing() throws Exception {
        String r8 = sample.get(8);
        String before = etags(r8).get(r8);
        Path csv = write(HEADER + "\n"
                + r8 + ",ACTIVO,HABIDO,SOCIEDAD ANONIMA,NO DISPONIBLE,NO DISPONIBLE,46900,5,,,,,,,,202609\n"
                + "not a line\n", ".csv");

        EtlRun run;
        try (ProgressLog progress = new ProgressLog()) {
            run = etl.run("padron-extendido", "--file", csv.toString());
            // The phase the run failed in ends stopped, with what it had read.
            assertThat(progress.phaseEnds()).hasSize(1);
            assertThat(progress.phaseEnds().getFirst())
                    .matches("padron-extendido: stage stopped after \\d+\\.\\d s, \\d+ B of \\d+ B \\(100 %\\),"
                            + " 2 lines, 1 rejected");
        }

        assertThat(run.exitCode()).as(run.stdout() + run.stderr()).isEqualTo(1);
        assertThat(run.stdout()).startsWith("padron-extendido failed: ").contains("1 of 2 lines rejected");
        List<JsonNode> events = etl.events(run.runId());
        assertThat(events).extracting(e -> e.path("type").asText())
                .containsExactly("etl.run.started", "etl.run.failed");
        assertThat(events.get(1).path("data").path("error").asText()).contains("rejected");
        assertThat(record(r8).path("tipo").isNull()).isTrue();
        assertThat(etags(r8).get(r8)).isEqualTo(before);
    }

    @Test
    void a_line_over_64_kib_fails_the_run_naming_it_and_changes_nothing() throws Exception {
        String r9 = sample.get(9);
        String r10 = sample.get(10);
        String before = etags(r9).get(r9);
        Path csv = write(HEADER + "\n"
                + r9 + ",ACTIVO,HABIDO,SOCIEDAD ANONIMA,NO DISPONIBLE,NO DISPONIBLE,46900,5,,,,,,,,202609\n"
                + r10 + ",ACTIVO,HABIDO," + "Ñ".repeat(40_000) + ",NO DISPONIBLE,NO DISPONIBLE,46900,5,,,,,,,,202609\n",
                ".csv");

        EtlRun run = etl.run("padron-extendido", "--file", csv.toString());

        assertThat(run.exitCode()).as(run.stdout() + run.stderr()).isEqualTo(1);
        assertThat(run.stdout()).startsWith("padron-extendido failed: ").contains("line 3 is over 65536 bytes")
                .hasLineCount(1);
        assertThat(record(r9).path("tipo").isNull()).isTrue();
        assertThat(record(r10).path("tipo").isNull()).isTrue();
        assertThat(etags(r9).get(r9)).isEqualTo(before);
    }

    @Test
    void a_run_stopped_the_way_sigterm_does_ends_canceled_and_changes_nothing() throws Exception {
        // A named pipe as the file: 50,000 lines, then, once the stop is requested the way SIGTERM requests it
        // (QuipuEtl.cancel), more lines in batches until the run ends (at most 1,000,000 in all). The run must
        // notice the request while it works through one long tasklet call, and end canceled.
        Path fifo = Files.createTempFile("padron-extendido-", ".fifo");
        files.add(fifo);
        Files.delete(fifo);
        assertThat(new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor()).isZero();
        java.util.concurrent.CountDownLatch stopRequested = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch runEnded = new java.util.concurrent.CountDownLatch(1);
        Thread writer = Thread.ofPlatform().start(() -> {
            try (OutputStream out = Files.newOutputStream(fifo)) {
                out.write((HEADER + "\n").getBytes(StandardCharsets.UTF_8));
                writeLines(out, 0, 50_000);
                stopRequested.await();
                for (int from = 50_000; from < 1_000_000 && runEnded.getCount() > 0; from += 10_000) {
                    writeLines(out, from, from + 10_000);
                }
            } catch (Exception ignored) {
                // the reading side went away: expected once the run is canceled
            }
        });
        Path config = Files.createTempFile("quipu-etl-", ".yml");
        files.add(config);
        Files.writeString(config, "database:\n  embeddedDataDirectory: " + quipu.database.dataDirectory() + "\n");
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        pe.quipu.etl.QuipuEtl process = new pe.quipu.etl.QuipuEtl(quipu.clock,
                new java.io.PrintStream(out, true, StandardCharsets.UTF_8),
                new java.io.PrintStream(new java.io.ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        java.util.concurrent.atomic.AtomicReference<Integer> code = new java.util.concurrent.atomic.AtomicReference<>();
        Thread run = Thread.ofPlatform().start(() -> {
            code.set(process.run(new String[] {"padron-extendido", "--file", fifo.toString(), config.toString()}));
            runEnded.countDown();
        });
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(60)).until(() ->
                count("select count(*) from pg_stat_activity where query like 'copy padron_extendido_stage%'") == 1);

        Thread cancel = Thread.ofPlatform().start(() -> process.cancel(Duration.ofSeconds(60)));
        stopRequested.countDown();
        run.join(Duration.ofSeconds(60));
        cancel.join(Duration.ofSeconds(60));
        writer.join(Duration.ofSeconds(10));

        assertThat(code.get()).isEqualTo(pe.quipu.etl.QuipuEtl.CANCELED);
        String summary = out.toString(StandardCharsets.UTF_8);
        assertThat(summary).startsWith("padron-extendido canceled: ");
        long runId = Long.parseLong(summary.replaceAll("(?s).*\\(run (\\d+)\\).*", "$1"));
        assertThat(etl.events(runId)).extracting(e -> e.path("type").asText())
                .containsExactly("etl.run.started", "etl.run.canceled");
        assertThat(count("select count(*) from ruc_registry where tipo is not null or ciiu is not null")).isZero();
    }

    private static void writeLines(OutputStream out, int from, int to) throws java.io.IOException {
        StringBuilder lines = new StringBuilder();
        for (int i = from; i < to; i++) {
            lines.append(pe.quipu.etl.generate.PadronGenerator.ruc("20", 900_000 + i))
                    .append(",ACTIVO,HABIDO,SOCIEDAD ANONIMA,NO DISPONIBLE,NO DISPONIBLE,46900,5,,,,,,,,202609\n");
        }
        out.write(lines.toString().getBytes(StandardCharsets.UTF_8));
    }

    private long count(String sql) throws Exception {
        try (Connection c = quipu.database.connection(); PreparedStatement q = c.prepareStatement(sql);
             ResultSet rs = q.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    void a_file_that_is_not_a_padron_ruc_csv_fails_the_run() throws Exception {
        Path csv = write("a,b,c\n1,2,3\n", ".csv");
        EtlRun run = etl.run("padron-extendido", "--file", csv.toString());
        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.stdout()).contains("not a PadronRUC file");
    }

    @Test
    void without_a_file_or_url_nothing_runs() {
        for (String[] args : List.of(new String[] {"padron-extendido"},
                new String[] {"padron-extendido", "--file", "a.csv", "--url", "http://127.0.0.1:9/a.csv"})) {
            EtlRun run = etl.run(args);
            assertThat(run.exitCode()).isEqualTo(2);
            assertThat(run.stdout()).isEmpty();
            assertThat(run.stderr()).contains("usage:");
        }
    }

    private Path write(String text, String suffix) throws Exception {
        Path file = Files.createTempFile("padron-extendido-", suffix);
        files.add(file);
        Files.writeString(file, text, StandardCharsets.UTF_8);
        return file;
    }

    private JsonNode record(String ruc) {
        HttpResponse<String> response = quipu.get("/v1/ruc/" + ruc, key);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return quipu.body(response);
    }

    private Map<String, String> etags(String... rucs) {
        Map<String, String> etags = new LinkedHashMap<>();
        for (String ruc : rucs) {
            HttpResponse<String> response = quipu.get("/v1/ruc/" + ruc, key);
            assertThat(response.statusCode()).isEqualTo(200);
            etags.put(ruc, response.headers().firstValue("ETag").orElseThrow());
        }
        return etags;
    }

    /** Valid RUCs (check digit computed) that are not in the sample. */
    private List<String> unknownRucs(int n) {
        Set<String> known = new HashSet<>(sample);
        List<String> rucs = new ArrayList<>();
        int[] weights = {5, 4, 3, 2, 7, 6, 5, 4, 3, 2};
        for (long i = 0; rucs.size() < n; i++) {
            String ten = "20" + String.format("%08d", 99_000_000L + i);
            int sum = 0;
            for (int k = 0; k < 10; k++) {
                sum += (ten.charAt(k) - '0') * weights[k];
            }
            int r = 11 - sum % 11;
            String ruc = ten + (r == 10 ? 0 : r == 11 ? 1 : r);
            new Ruc(ruc);
            if (!known.contains(ruc)) {
                rucs.add(ruc);
            }
        }
        return rucs;
    }

    private long unknownRucsInRegistry(List<String> rucs) throws Exception {
        try (Connection c = quipu.database.connection(); PreparedStatement q = c.prepareStatement(
                "select count(*) from ruc_registry where ruc = any(?)")) {
            q.setArray(1, c.createArrayOf("text", rucs.toArray()));
            try (ResultSet rs = q.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }
}
