package pe.quipu.etl.source;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.testing.PadronFixtures;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.core.ruc.PadronSample;
import pe.quipu.etl.QuipuEtl;
import pe.quipu.etl.generate.PadronGenerator;
import pe.quipu.etl.testing.EtlRun;
import pe.quipu.etl.testing.EtlRunner;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.Statement;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a job reads from {@code --url} (and {@code --file}): a hostile or broken server cannot make a run download
 * without end, plain http is refused in production unless {@code etl.allowHttp} says so, and the run records the
 * SHA-256 and size of the file it read. The server here is SUNAT's stand-in: a local HTTP server.
 */
class SourceDownloadTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();
    private static final EtlRunner etl = new EtlRunner(quipu.clock, quipu.bcrp, quipu.database);
    /** Rows of the endless padrón: about 40 MB, far past the 1 MB cap the test sets and any socket's buffers. */
    private static final int ENDLESS_ROWS = 300_000;

    private static HttpServer server;
    private static ExecutorService threads;
    private static byte[] sample;
    private static final AtomicInteger requests = new AtomicInteger();
    private static final AtomicLong sent = new AtomicLong();
    private static volatile boolean finished;

    @BeforeAll
    static void startServer() throws IOException {
        try (var in = PadronSample.open()) {
            sample = in.readAllBytes();
        }
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        threads = Executors.newCachedThreadPool();
        server.setExecutor(threads);
        server.createContext("/sample.txt", exchange -> answer(exchange, () -> {
            exchange.sendResponseHeaders(200, sample.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(sample);
            }
        }));
        // Claims more than the default cap (4 GB) in Content-Length, and sends while the client reads (64 MB at most).
        server.createContext("/huge.zip", exchange -> answer(exchange, () -> {
            exchange.sendResponseHeaders(200, 5_000_000_000L);
            OutputStream out = exchange.getResponseBody();
            for (long written = 0; written < 64_000_000; written += sample.length) {
                out.write(sample);
                out.flush();
            }
        }));
        // No Content-Length (chunked): a valid padrón that goes on and on.
        server.createContext("/endless.txt", exchange -> answer(exchange, () -> {
            exchange.sendResponseHeaders(200, 0);
            try (OutputStream out = new OutputStream() {
                private final OutputStream body = exchange.getResponseBody();

                @Override
                public void write(int b) throws IOException {
                    body.write(b);
                    sent.incrementAndGet();
                }

                @Override
                public void write(byte[] b, int off, int len) throws IOException {
                    body.write(b, off, len);
                    sent.addAndGet(len);
                }

                @Override
                public void close() throws IOException {
                    body.close();
                }
            }) {
                PadronGenerator.write(out, ENDLESS_ROWS, 13);
                finished = true;
            }
        }));
        server.start();
    }

    private interface Answer {
        void send() throws IOException;
    }

    private static void answer(HttpExchange exchange, Answer answer) {
        requests.incrementAndGet();
        try {
            answer.send();
        } catch (IOException | RuntimeException e) {
            // the client went away: what the tests expect of a refused download
        } finally {
            exchange.close();
        }
    }

    @AfterAll
    static void stopServer() {
        server.stop(0);
        threads.shutdownNow();
    }

    @AfterEach
    void restoreSample() throws Exception {
        try (Connection c = quipu.database.connection(); Statement s = c.createStatement()) {
            s.execute("delete from ruc_registry");
        }
        PadronFixtures.load(quipu.database, QuipuExtension.START);
        requests.set(0);
    }

    private static String url(String path) {
        return "http://127.0.0.1:" + server.getAddress().getPort() + path;
    }

    @Test
    void a_download_announcing_more_than_etl_max_download_bytes_is_refused_at_once_and_changes_nothing()
            throws Exception {
        EtlRun run = etl.run("padron", "--url", url("/huge.zip"));

        assertThat(run.exitCode()).as(run.stderr()).isEqualTo(QuipuEtl.FAILED);
        assertThat(run.stdout()).startsWith("padron failed: read 0, written 0, rejected 0,")
                .contains("5000000000 bytes").contains("etl.maxDownloadBytes (4000000000 bytes)")
                .hasLineCount(1);
        // Not asked again: a file too large stays too large.
        assertThat(requests.get()).isOne();
        assertThat(etl.events(run.runId())).extracting(e -> e.path("type").asText())
                .containsExactly("etl.run.started", "etl.run.failed");
        assertThat(registryRows()).isEqualTo(61);
    }

    @Test
    void a_download_without_a_length_is_cut_at_etl_max_download_bytes_and_the_run_fails_changing_nothing()
            throws Exception {
        sent.set(0);
        finished = false;

        EtlRun run = etl.runConfigured("development", Map.of("maxDownloadBytes", "1MB"),
                "padron", "--url", url("/endless.txt"));

        assertThat(run.exitCode()).as(run.stdout() + run.stderr()).isEqualTo(QuipuEtl.FAILED);
        assertThat(run.stdout()).startsWith("padron failed: read 0, written 0, rejected 0,")
                .contains("etl.maxDownloadBytes (1000000 bytes)").hasLineCount(1);
        // The transfer stopped: the server could not send its whole file (the socket's buffers hold a few MB).
        assertThat(finished).isFalse();
        assertThat(sent.get()).isLessThan(20_000_000);
        assertThat(requests.get()).isOne();
        assertThat(registryRows()).isEqualTo(61);
    }

    @Test
    void plain_http_is_refused_in_production_unless_etl_allow_http_says_so() throws Exception {
        EtlRun refused = etl.runConfigured("production", Map.of(), "padron", "--url", url("/sample.txt"));

        assertThat(refused.exitCode()).isEqualTo(QuipuEtl.USAGE);
        assertThat(refused.stdout()).isEmpty();
        assertThat(refused.stderr().strip()).hasLineCount(1).contains("http://").contains("etl.allowHttp");
        assertThat(requests.get()).isZero();

        EtlRun allowed = etl.runConfigured("production", Map.of("allowHttp", "true"),
                "padron", "--url", url("/sample.txt"));
        assertThat(allowed.exitCode()).as(allowed.stdout() + allowed.stderr()).isZero();

        EtlRun development = etl.run("padron", "--url", url("/sample.txt"));
        assertThat(development.exitCode()).as(development.stdout() + development.stderr()).isZero();
        EtlRun refusedInDevelopmentToo = etl.runConfigured("development", Map.of("allowHttp", "false"),
                "padron", "--url", url("/sample.txt"));
        assertThat(refusedInDevelopmentToo.exitCode()).isEqualTo(QuipuEtl.USAGE);
    }

    @Test
    void the_run_records_the_sha256_and_size_of_the_file_it_read_downloaded_or_given() throws Exception {
        EtlRun downloaded = etl.run("padron", "--url", url("/sample.txt"));

        assertThat(downloaded.exitCode()).as(downloaded.stdout() + downloaded.stderr()).isZero();
        assertThat(etl.runContext(downloaded.runId())).containsEntry("source.sha256", sha256(sample))
                .containsEntry("source.bytes", (long) sample.length);

        Path zip = Files.createTempFile("quipu-source-", ".zip");
        try {
            PadronGenerator.write(zip, 1_000, 3);
            byte[] bytes = Files.readAllBytes(zip);
            EtlRun given = etl.run("padron", "--file", zip.toString());
            assertThat(given.exitCode()).as(given.stdout() + given.stderr()).isZero();
            assertThat(etl.runContext(given.runId())).containsEntry("source.sha256", sha256(bytes))
                    .containsEntry("source.bytes", (long) bytes.length);
        } finally {
            Files.deleteIfExists(zip);
        }
    }

    private static String sha256(byte[] bytes) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    }

    private static long registryRows() {
        return Long.parseLong(quipu.database.texts("select count(*) from ruc_registry").getFirst());
    }
}
