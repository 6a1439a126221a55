package pe.quipu.etl.padron;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.testing.PadronFixtures;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.etl.generate.PadronGenerator;
import pe.quipu.etl.testing.ChildEtl;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A padron run's progress, end to end: the run in a JVM of its own, as cron starts it, standard output and standard
 * error kept apart, its file downloaded from a local stand-in of SUNAT's server. Standard error is no terminal, so the
 * run logs a line every {@code etl.progressEvery} (50 ms here) and one at the end of each phase; standard output holds
 * the summary alone.
 */
class PadronProgressTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();
    /** Generated records, none of them among the sample's 61 in service: all of those go. */
    private static final int ROWS = 5_000;
    /** A progress line of the download, with the share, a rate and the ETA: it needs the download to last a second. */
    private static final Pattern DOWNLOAD_TICK = Pattern.compile("pe\\.quipu\\.etl\\.run\\.Progress: padron: download"
            + " [\\d.]+ kB of [\\d.]+ kB \\(\\d+ %\\), [\\d.]+ MB/s, elapsed \\d:\\d\\d, ETA \\d:\\d\\d\\n");

    private static Path dir;
    private static HttpServer server;
    private static ExecutorService threads;
    private static volatile ChildEtl child;

    @BeforeAll
    static void startServer() throws IOException {
        // The sample's 61 records alone in service: the run compares its file with them, then builds a new registry.
        quipu.database.jdbi().useHandle(h -> h.execute("delete from ruc_registry"));
        PadronFixtures.load(quipu.database, QuipuExtension.START);
        dir = Files.createTempDirectory("quipu-padron-progress-");
        byte[] zip = zip();
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        threads = Executors.newCachedThreadPool();
        server.setExecutor(threads);
        // Half the file, then the rest once the run has logged a progress line of its download with an ETA, so
        // that there is one whatever the machine's speed.
        server.createContext("/padron_reducido_ruc.zip", exchange -> {
            try (OutputStream out = exchange.getResponseBody()) {
                exchange.sendResponseHeaders(200, zip.length);
                out.write(zip, 0, zip.length / 2);
                out.flush();
                await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20))
                        .until(() -> child != null && DOWNLOAD_TICK.matcher(child.log()).find());
                out.write(zip, zip.length / 2, zip.length - zip.length / 2);
            } finally {
                exchange.close();
            }
        });
        server.start();
    }

    @AfterAll
    static void stopServerAndPutTheSampleBack() throws Exception {
        server.stop(0);
        threads.shutdownNow();
        PadronFixtures.restore(quipu.database, dir);
    }

    @Test
    void a_run_logs_its_progress_and_each_phase_on_standard_error_and_only_its_summary_on_standard_output()
            throws Exception {
        String url = "http://127.0.0.1:" + server.getAddress().getPort() + "/padron_reducido_ruc.zip";
        try (ChildEtl run = ChildEtl.startApart(quipu.database, Map.of("progressEvery", "50ms"),
                "padron", "--url", url)) {
            child = run;
            assertThat(run.process().waitFor(180, TimeUnit.SECONDS)).as(run.log()).isTrue();
            String stderr = run.log();
            assertThat(run.process().exitValue()).as(stderr).isZero();

            assertThat(run.stdout()).matches("padron succeeded: read " + ROWS + ", written " + ROWS
                    + ", rejected 0, in \\d+\\.\\d s \\(run \\d+\\)\\n");
            assertThat(stderr).containsPattern(DOWNLOAD_TICK);
            // Each phase's last line, in the order the phases ran.
            List<String> ends = stderr.lines().filter(l -> l.contains("run.Progress: padron: "))
                    .map(l -> l.substring(l.indexOf("padron: ")))
                    .filter(l -> l.matches("padron: \\w+ (done in|stopped after) .*")).toList();
            assertThat(ends).hasSize(5);
            assertThat(ends.get(0)).matches("padron: download done in [\\d.]+ s, [\\d.]+ kB, [\\d.]+ MB/s");
            assertThat(ends.get(1)).matches("padron: stage done in [\\d.]+ s, [\\d.]+ kB, 5,000 lines, 0 rejected.*");
            assertThat(ends.get(2)).matches("padron: compare done in [\\d.]+ s, 5,000 records");
            assertThat(ends.get(3)).matches("padron: publish done in [\\d.]+ s, 5,061 records differing");
            assertThat(ends.get(4)).matches("padron: index done in [\\d.]+ s, 5,000 records");
            // Whatever else it logged, nothing on a line of its own with the summary (a terminal's line would be).
            assertThat(stderr).doesNotContain("\r", "succeeded: read");
        } finally {
            child = null;
        }
    }

    private static byte[] zip() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ZipOutputStream zip = new ZipOutputStream(bytes)) {
            zip.putNextEntry(new ZipEntry("padron_reducido_ruc.txt"));
            PadronGenerator.write(zip, ROWS, 7);
            zip.closeEntry();
        }
        return bytes.toByteArray();
    }
}
