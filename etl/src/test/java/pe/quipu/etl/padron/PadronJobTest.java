package pe.quipu.etl.padron;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.etl.generate.PadronGenerator;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.testing.PadronFixtures;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.core.ruc.ContentHash;
import pe.quipu.core.ruc.PadronSample;
import pe.quipu.etl.QuipuEtl;
import pe.quipu.etl.testing.EtlRun;
import pe.quipu.etl.testing.EtlRunner;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The padron job end to end: files in SUNAT's format through {@code quipu-etl padron} on the test app's
 * database, then checked through the API. The registry is shared with other test classes, so every test
 * leaves the 61 sample records in it, as PadronFixtures puts them.
 */
class PadronJobTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();
    private static final EtlRunner etl = new EtlRunner(quipu.clock, quipu.bcrp, quipu.database);
    private static final String SUMMARY = "padron %s: read %d, written %d, rejected %d, in \\d+\\.\\d s \\(run \\d+\\)\n";
    private static String key;
    private static Path dir;
    private static byte[] sample;

    private Instant clockBefore;

    @BeforeAll
    static void setUp() throws IOException {
        key = quipu.accounts.newKey(Scope.RUC_READ);
        dir = Files.createTempDirectory("quipu-padron-test-");
        try (var in = PadronSample.open()) {
            sample = in.readAllBytes();
        }
    }

    @BeforeEach
    void rememberClock() {
        clockBefore = quipu.clock.instant();
    }

    @AfterEach
    void restoreClock() {
        quipu.clock.set(clockBefore);
    }

    @AfterAll
    static void putTheSampleBack() throws Exception {
        PadronFixtures.restore(quipu.database, dir);
    }

    @Test
    void the_real_sample_loads_from_the_zip_and_from_the_txt_and_the_api_serves_it_field_by_field() throws Exception {
        Path zip = zip("sample.zip", sample);
        quipu.clock.set(Instant.parse("2026-10-08T11:00:00Z"));
        clearRegistry();

        EtlRun run = etl.run("padron", "--file", zip.toString());

        assertThat(run.exitCode()).as(run.stderr()).isZero();
        assertThat(run.stdout()).matches(SUMMARY.formatted("succeeded", 61, 61, 0));
        List<JsonNode> events = etl.events(run.runId());
        assertThat(events).extracting(e -> e.path("type").asText())
                .containsExactly("etl.run.started", "etl.run.succeeded");
        JsonNode done = events.get(1).path("data");
        assertThat(done.path("job").asText()).isEqualTo("padron");
        assertThat(done.path("rowsRead").asLong()).isEqualTo(61);
        assertThat(done.path("rowsWritten").asLong()).isEqualTo(61);
        assertThat(done.path("rowsRejected").asLong()).isZero();
        assertThat(done.path("error").isNull()).isTrue();
        assertThat(events.get(0).path("data").path("rowsRead").isNull()).isTrue();

        assertRecord("20272209325", "PESCA PERU MOLLENDO S.A.", "BAJA DEFINITIVA", "HABIDO", "150122",
                "AV. JOSE PARDO NRO. 601 INT. 1603", "2026-10-08T11:00:00Z");
        assertRecord("20330791412", "ENEL GENERACION PERU S.A.A.", "ACTIVO", "HABIDO", "150136",
                "CAL. CÉSAR LÓPEZ ROJAS NRO. 201 URB. MARANGA SÉPTIMA ETAPA", "2026-10-08T11:00:00Z");
        assertRecord("20100193117", "YARA PERU S.R.L.", "ACTIVO", "HABIDO", "150140",
                "CAL. MONTERREY NRO. 355 DPTO. 501 URB. CHACARILLA DEL ESTANQUE", "2026-10-08T11:00:00Z");
        assertRecord("10452159428", "GARCIA CHANCO CARLOS AUGUSTO", "ACTIVO", "HABIDO", "150117",
                "MZA. W LOTE. 3 A.H. VIRGEN DE FATIMA", "2026-10-08T11:00:00Z");
        assertRecord("20100227461", "TRANSPORTES CRUZ DEL SUR S.A.C.", "ACTIVO", "HABIDO", "150137",
                "AV. FRANCISCO BOLOGNESI NRO. 495 ZONA INDUSTRIAL", "2026-10-08T11:00:00Z");
        assertThat(count("select count(*) from ruc_registry")).isEqualTo(61);
        // The fingerprint the ETL computes in Java is the one the migration computes in SQL.
        assertThat(count("select count(*) from ruc_registry where content_hash is distinct from " + ContentHash.SQL))
                .isZero();
        assertThat(count("select rows from dataset_loads where dataset = 'padron'")).isEqualTo(61);

        // The bare txt, LF line ends this time: the same records, and nothing changed, so nothing moves.
        Path txt = dir.resolve("sample-lf.txt");
        Files.write(txt, new String(sample, StandardCharsets.ISO_8859_1).replace("\r\n", "\n")
                .getBytes(StandardCharsets.ISO_8859_1));
        quipu.clock.set(Instant.parse("2026-10-09T11:00:00Z"));
        EtlRun again = etl.run("padron", "--file", txt.toString());
        assertThat(again.exitCode()).as(again.stderr()).isZero();
        assertThat(again.stdout()).matches(SUMMARY.formatted("succeeded", 61, 61, 0));
        assertRecord("20330791412", "ENEL GENERACION PERU S.A.A.", "ACTIVO", "HABIDO", "150136",
                "CAL. CÉSAR LÓPEZ ROJAS NRO. 201 URB. MARANGA SÉPTIMA ETAPA", "2026-10-08T11:00:00Z");
        restoreSample();
    }

    @Test
    void an_unchanged_reload_keeps_actualizado_and_etag_and_a_changed_line_moves_only_its_record() throws Exception {
        clearRegistry();
        quipu.clock.set(Instant.parse("2026-10-10T11:00:00Z"));
        Path first = txt("first.txt", sample);
        assertThat(etl.run("padron", "--file", first.toString()).exitCode()).isZero();
        // tipo and ciiu come from the extended padrón and survive a padrón load.
        try (Connection c = quipu.database.connection(); Statement s = c.createStatement()) {
            s.execute("update ruc_registry set tipo = 'SOCIEDAD ANONIMA', ciiu = '4923' where ruc = '20100227461'");
        }
        String etagCruz = etag("20100227461");
        String etagEnel = etag("20330791412");

        quipu.clock.set(Instant.parse("2026-10-11T11:00:00Z"));
        assertThat(etl.run("padron", "--file", first.toString()).exitCode()).isZero();
        assertThat(etag("20100227461")).isEqualTo(etagCruz);
        assertThat(etag("20330791412")).isEqualTo(etagEnel);
        assertThat(count("select count(*) from ruc_registry where actualizado <> '2026-10-10T11:00:00Z'")).isZero();

        String changed = new String(sample, StandardCharsets.ISO_8859_1)
                .replace("20330791412|ENEL GENERACION PERU S.A.A.|ACTIVO|", "20330791412|ENEL GENERACION PERU S.A.A.|BAJA DE OFICIO|");
        quipu.clock.set(Instant.parse("2026-10-12T11:00:00Z"));
        EtlRun run = etl.run("padron", "--file", txt("changed.txt", changed.getBytes(StandardCharsets.ISO_8859_1)).toString());
        assertThat(run.exitCode()).as(run.stderr()).isZero();

        assertThat(etag("20100227461")).isEqualTo(etagCruz);
        assertThat(etag("20330791412")).isNotEqualTo(etagEnel);
        JsonNode enel = quipu.body(quipu.get("/v1/ruc/20330791412", key));
        assertThat(enel.path("estado").asText()).isEqualTo("BAJA DE OFICIO");
        assertThat(enel.path("actualizado").asText()).isEqualTo("2026-10-12T11:00:00Z");
        JsonNode cruz = quipu.body(quipu.get("/v1/ruc/20100227461", key));
        assertThat(cruz.path("tipo").asText()).isEqualTo("SOCIEDAD ANONIMA");
        assertThat(cruz.path("ciiu").asText()).isEqualTo("4923");
        assertThat(cruz.path("actualizado").asText()).isEqualTo("2026-10-10T11:00:00Z");
        assertThat(count("select count(*) from ruc_registry where actualizado = '2026-10-12T11:00:00Z'")).isOne();
        restoreSample();
    }

    @Test
    void rejected_lines_are_counted_exactly_and_sampled_and_the_last_line_of_a_repeated_ruc_wins() throws Exception {
        ByteArrayOutputStream file = new ByteArrayOutputStream();
        PadronGenerator.write(file, 5_000, 7);
        String badCheckDigit = "20100227462|TRANSPORTES CRUZ DEL SUR S.A.C.|ACTIVO|HABIDO|150137|-|-|-|-|-|-|-|-|-|-|\r\n";
        String shortLine = "20100193117|YARA PERU S.R.L.|ACTIVO|HABIDO|150140|CAL.|MONTERREY|\r\n";
        String nonDigit = "2010019311X|YARA PERU S.R.L.|ACTIVO|HABIDO|150140|-|-|-|-|-|-|-|-|-|-|\r\n";
        String firstRuc = PadronGenerator.ruc("10", 0);
        String repeated = firstRuc + "|NOMBRE  CORREGIDO|ACTIVO|HABIDO|-|-|-|-|-|-|-|-|-|-|-|\r\n";
        file.write((badCheckDigit + shortLine + nonDigit + repeated).getBytes(StandardCharsets.ISO_8859_1));
        Path path = zip("rejects.zip", file.toByteArray());

        EtlRun run = etl.run("padron", "--file", path.toString());

        assertThat(run.exitCode()).as(run.stderr()).isZero();
        // 5,004 lines: three malformed, and the generator's first line replaced by the repeated RUC's.
        assertThat(run.stdout()).matches(SUMMARY.formatted("succeeded", 5_004, 5_000, 4));
        long runId = run.runId();
        JsonNode done = etl.events(runId).get(1).path("data");
        assertThat(done.path("rowsRead").asLong()).isEqualTo(5_004);
        assertThat(done.path("rowsWritten").asLong()).isEqualTo(5_000);
        assertThat(done.path("rowsRejected").asLong()).isEqualTo(4);
        try (Connection c = quipu.database.connection(); PreparedStatement q = c.prepareStatement("""
                select short_context from batch_step_execution_context x
                  join batch_step_execution s on s.step_execution_id = x.step_execution_id
                 where s.job_execution_id = ? and s.step_name = 'stage'""")) {
            q.setLong(1, runId);
            try (ResultSet rs = q.executeQuery()) {
                assertThat(rs.next()).isTrue();
                // The step's context as Spring Batch stores it (serialized, then Base64).
                String context = rs.getString(1);
                try {
                    context = new String(java.util.Base64.getDecoder().decode(context), StandardCharsets.ISO_8859_1);
                } catch (IllegalArgumentException notBase64) {
                    // stored as plain text
                }
                assertThat(context).contains("rejected.sample")
                        .contains("line 5002: invalid RUC: wrong check digit")
                        .contains("line 5003: ").contains("line 5004: invalid RUC")
                        .contains("line 5005: RUC " + firstRuc + " already appeared");
            }
        }
        assertThat(quipu.body(quipu.get("/v1/ruc/" + firstRuc, key)).path("razonSocial").asText())
                .isEqualTo("NOMBRE  CORREGIDO");
        assertThat(quipu.get("/v1/ruc/20330791412", key).statusCode()).isEqualTo(404);
        restoreSample();
    }

    @Test
    void a_file_over_the_rejected_share_fails_and_the_registry_in_service_stays() throws Exception {
        restoreSample();
        String bad = new String(sample, StandardCharsets.ISO_8859_1)
                + "20100227462|X|ACTIVO|HABIDO|-|-|-|-|-|-|-|-|-|-|-|\r\n";
        EtlRun run = etl.run("padron", "--file", txt("bad.txt", bad.getBytes(StandardCharsets.ISO_8859_1)).toString());

        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.stdout()).startsWith("padron failed: read 62, written 0, rejected 1,")
                .contains("over the 0.100 % allowed");
        List<JsonNode> events = etl.events(run.runId());
        assertThat(events).extracting(e -> e.path("type").asText())
                .containsExactly("etl.run.started", "etl.run.failed");
        assertThat(events.get(1).path("data").path("rowsRejected").asLong()).isOne();
        assertThat(quipu.get("/v1/ruc/20100227461", key).statusCode()).isEqualTo(200);
        assertThat(count("select count(*) from ruc_registry")).isEqualTo(61);
        assertThat(count("select count(*) from pg_tables where tablename like 'ruc_registry_%'"
                + " and tablename <> 'ruc_registry_words'")).isZero();
    }

    @Test
    void a_line_over_64_kib_fails_the_run_naming_it_and_the_registry_in_service_stays() throws Exception {
        restoreSample();
        // A well-formed line whose name alone is 70,000 characters: no real padrón line is over a few hundred
        // bytes, and a file with one (or with no line end at all) is damaged or hostile.
        String longName = PadronGenerator.ruc("20", 4_242) + "|" + "X".repeat(70_000)
                + "|ACTIVO|HABIDO|150137|-|-|-|-|-|-|-|-|-|-|\r\n";
        String body = new String(sample, StandardCharsets.ISO_8859_1);
        int third = body.indexOf('\n', body.indexOf('\n') + 1) + 1;
        String bad = body.substring(0, third) + longName + body.substring(third);

        EtlRun run = etl.run("padron", "--file", zip("long-line.zip", bad.getBytes(StandardCharsets.ISO_8859_1)).toString());

        assertThat(run.exitCode()).as(run.stdout() + run.stderr()).isEqualTo(1);
        assertThat(run.stdout()).startsWith("padron failed: ").contains("line 3 is over 65536 bytes").hasLineCount(1);
        assertThat(etl.events(run.runId())).extracting(e -> e.path("type").asText())
                .containsExactly("etl.run.started", "etl.run.failed");
        assertThat(quipu.body(quipu.get("/v1/ruc/20100227461", key)).path("razonSocial").asText())
                .isEqualTo("TRANSPORTES CRUZ DEL SUR S.A.C.");
        assertThat(count("select count(*) from ruc_registry")).isEqualTo(61);
        assertThat(count("select count(*) from pg_tables where tablename like 'ruc_registry_%'"
                + " and tablename <> 'ruc_registry_words'")).isZero();
    }

    @Test
    void a_file_much_smaller_than_the_registry_in_service_is_refused_as_truncated_unless_allowed() throws Exception {
        Path full = dir.resolve("full.txt");
        PadronGenerator.write(full, 2_000, 5);
        try {
            assertThat(etl.runKeeping(0.9, "padron", "--file", full.toString()).exitCode()).isZero();
            // The same file cut after its first 1,000 records, at a line end: every line in it is well formed.
            byte[] bytes = Files.readAllBytes(full);
            int end = 0;
            for (int newlines = 0; newlines < 1_001; end++) { // the header and 1,000 records
                if (bytes[end] == '\n') {
                    newlines++;
                }
            }
            Path cut = txt("cut.txt", java.util.Arrays.copyOf(bytes, end));

            EtlRun run = etl.runKeeping(0.9, "padron", "--file", cut.toString());

            assertThat(run.exitCode()).isEqualTo(1);
            assertThat(run.stdout()).startsWith("padron failed: read 1000, written 0, rejected 0,")
                    .contains("50.0 % of the 2000 in service").contains("truncated");
            assertThat(etl.events(run.runId())).extracting(e -> e.path("type").asText())
                    .containsExactly("etl.run.started", "etl.run.failed");
            assertThat(count("select count(*) from ruc_registry")).isEqualTo(2_000);
            List<String> lines = new String(bytes, StandardCharsets.ISO_8859_1).lines().toList();
            String lastRuc = lines.getLast().substring(0, 11); // beyond the cut
            assertThat(quipu.get("/v1/ruc/" + lastRuc, key).statusCode()).isEqualTo(200);
            assertThat(count("select count(*) from pg_tables where tablename like 'ruc_registry_%'"
                + " and tablename <> 'ruc_registry_words'")).isZero();

            // On purpose (the check off): the smaller file replaces the registry.
            assertThat(etl.runKeeping(0, "padron", "--file", cut.toString()).exitCode()).isZero();
            assertThat(count("select count(*) from ruc_registry")).isEqualTo(1_000);
        } finally {
            restoreSample();
        }
    }

    @Test
    void readers_see_the_old_registry_then_the_new_one_and_never_an_error_or_a_gap() throws Exception {
        restoreSample();
        ByteArrayOutputStream file = new ByteArrayOutputStream();
        PadronGenerator.write(file, 300_000, 11);
        String body = new String(sample, StandardCharsets.ISO_8859_1);
        file.write(body.substring(body.indexOf('\n') + 1).getBytes(StandardCharsets.ISO_8859_1));
        Path path = zip("big.zip", file.toByteArray());

        AtomicInteger lookups = new AtomicInteger();
        List<String> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        EtlRun run = etl.runWhile(() -> {
            for (String ruc : List.of("20100227461", "10452159428")) {
                try {
                    HttpResponse<String> r = quipu.get("/v1/ruc/" + ruc, key);
                    lookups.incrementAndGet();
                    if (r.statusCode() != 200) {
                        failures.add(ruc + " -> " + r.statusCode() + " " + r.body());
                    }
                } catch (RuntimeException e) {
                    failures.add(ruc + " -> " + e);
                }
            }
        }, "padron", "--file", path.toString());

        assertThat(run.exitCode()).as(run.stderr()).isZero();
        assertThat(run.stdout()).matches(SUMMARY.formatted("succeeded", 300_061, 300_061, 0));
        assertThat(failures).isEmpty();
        assertThat(lookups.get()).isPositive();
        assertThat(quipu.get("/v1/ruc/" + PadronGenerator.ruc("10", 0), key).statusCode()).isEqualTo(200);
        restoreSample();
    }

    @Test
    void a_run_canceled_the_way_sigterm_does_ends_canceled_and_a_rerun_after_a_killed_run_completes() throws Exception {
        restoreSample();
        // A named pipe as the file: the run stages what it was given and then waits for more, until canceled.
        Path fifo = dir.resolve("padron.fifo");
        assertThat(new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor()).isZero();
        CountDownLatch canceled = new CountDownLatch(1);
        Thread writer = Thread.ofPlatform().start(() -> {
            try (OutputStream out = Files.newOutputStream(fifo)) {
                PadronGenerator.write(out, 50_000, 3);
                canceled.await();
            } catch (Exception ignored) {
                // the reading side went away: expected once the run is canceled
            }
        });
        EtlRun run;
        try {
            run = etl.runCanceledWhen(() ->
                    count("select count(*) from pg_tables where tablename = 'ruc_registry_stage'") == 1,
                    "padron", "--file", fifo.toString());
        } finally {
            canceled.countDown();
            writer.join();
        }

        assertThat(run.exitCode()).as(run.stderr()).isEqualTo(QuipuEtl.CANCELED);
        assertThat(run.stdout()).startsWith("padron canceled: ");
        assertThat(etl.events(run.runId())).extracting(e -> e.path("type").asText())
                .containsExactly("etl.run.started", "etl.run.canceled");
        assertThat(count("select count(*) from ruc_registry")).isEqualTo(61);
        assertThat(quipu.get("/v1/ruc/20100227461", key).statusCode()).isEqualTo(200);
        assertThat(count("select count(*) from pg_tables where tablename = 'ruc_registry_stage'")).isZero();

        // A killed run: its process vanished with the run recorded as started and work tables left behind.
        long orphan;
        try (Connection c = quipu.database.connection(); Statement s = c.createStatement()) {
            s.execute("create table ruc_registry_new (ruc char(11))");
            s.execute("create unlogged table if not exists ruc_registry_stage (ruc char(11))");
            try (ResultSet rs = s.executeQuery("""
                    insert into batch_job_instance (job_instance_id, version, job_name, job_key)
                    values (nextval('batch_job_instance_seq'), 0, 'padron', md5(random()::text))
                    returning job_instance_id""")) {
                rs.next();
                long instance = rs.getLong(1);
                try (ResultSet e = s.executeQuery("""
                        insert into batch_job_execution (job_execution_id, version, job_instance_id, create_time,
                            start_time, status, exit_code, last_updated)
                        values (nextval('batch_job_execution_seq'), 1, %d, now() - interval '1 hour',
                            now() - interval '1 hour', 'STARTED', 'UNKNOWN', now() - interval '1 hour')
                        returning job_execution_id""".formatted(instance))) {
                    e.next();
                    orphan = e.getLong(1);
                }
            }
        }
        Path file = zip("after-kill.zip", sample);
        EtlRun rerun = etl.run("padron", "--file", file.toString());

        assertThat(rerun.exitCode()).as(rerun.stderr()).isZero();
        assertThat(rerun.stdout()).matches(SUMMARY.formatted("succeeded", 61, 61, 0));
        assertThat(etl.events(orphan)).extracting(e -> e.path("type").asText()).containsExactly("etl.run.failed");
        assertThat(count("select count(*) from ruc_registry")).isEqualTo(61);
        assertThat(count("select count(*) from pg_tables where tablename like 'ruc_registry_%'"
                + " and tablename <> 'ruc_registry_words'")).isZero();
    }

    // --- helpers

    private static void assertRecord(String ruc, String razonSocial, String estado, String condicion, String ubigeo,
                                     String direccion, String actualizado) {
        HttpResponse<String> response = quipu.get("/v1/ruc/" + ruc, key);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        JsonNode body = quipu.body(response);
        assertThat(body.path("ruc").asText()).isEqualTo(ruc);
        assertThat(body.path("razonSocial").asText()).isEqualTo(razonSocial);
        assertThat(body.path("estado").asText()).isEqualTo(estado);
        assertThat(body.path("condicion").asText()).isEqualTo(condicion);
        assertThat(body.path("ubigeo").asText()).isEqualTo(ubigeo);
        assertThat(body.path("direccion").asText()).isEqualTo(direccion);
        assertThat(body.path("tipo").isNull()).isTrue();
        assertThat(body.path("ciiu").isNull()).isTrue();
        assertThat(body.path("actualizado").asText()).isEqualTo(actualizado);
    }

    private static String etag(String ruc) {
        HttpResponse<String> response = quipu.get("/v1/ruc/" + ruc, key);
        assertThat(response.statusCode()).isEqualTo(200);
        return response.headers().firstValue("ETag").orElseThrow();
    }

    /** The 61 sample records as other test classes expect them (actualizado = QuipuExtension.START). */
    private static void restoreSample() throws Exception {
        clearRegistry();
        PadronFixtures.load(quipu.database, QuipuExtension.START);
    }

    private static void clearRegistry() throws Exception {
        try (Connection c = quipu.database.connection(); Statement s = c.createStatement()) {
            s.execute("delete from ruc_registry");
        }
    }

    private static Path txt(String name, byte[] content) throws IOException {
        Path file = dir.resolve(name);
        Files.write(file, content);
        return file;
    }

    private static Path zip(String name, byte[] content) throws IOException {
        Path file = dir.resolve(name);
        try (ZipOutputStream zip = new ZipOutputStream(Files.newOutputStream(file))) {
            zip.putNextEntry(new ZipEntry("padron_reducido_ruc.txt"));
            zip.write(content);
            zip.closeEntry();
        }
        return file;
    }

    private static long count(String sql) throws Exception {
        try (Connection c = quipu.database.connection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

}
