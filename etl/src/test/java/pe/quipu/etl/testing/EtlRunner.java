package pe.quipu.etl.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.springframework.batch.core.repository.dao.DefaultExecutionContextSerializer;
import pe.quipu.core.testing.BcrpStub;
import pe.quipu.core.testing.SunatStub;
import pe.quipu.core.testing.TestDatabase;
import pe.quipu.etl.QuipuEtl;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

import static org.awaitility.Awaitility.await;

/**
 * Runs {@code java -jar quipu-etl.jar <args…> config.yml} in the test JVM: on the test database (the ETL attaches to
 * its embedded server as to any other Quipu process's), against BCRP and SUNAT stand-ins, on a test clock. Also reads
 * what a run announced in the outbox.
 */
public final class EtlRunner {

    private final Clock clock;
    private final BcrpStub bcrp;
    /** Where SUNAT is asked; a closed port when the test has no SUNAT stand-in. */
    private final String sunatBaseUrl;
    private final TestDatabase database;
    private final ObjectMapper json = new ObjectMapper();

    public EtlRunner(Clock clock, BcrpStub bcrp, TestDatabase database) {
        this(clock, bcrp, "http://127.0.0.1:9", database);
    }

    public EtlRunner(Clock clock, BcrpStub bcrp, SunatStub sunat, TestDatabase database) {
        this(clock, bcrp, sunat.baseUrl(), database);
    }

    private EtlRunner(Clock clock, BcrpStub bcrp, String sunatBaseUrl, TestDatabase database) {
        this.clock = clock;
        this.bcrp = bcrp;
        this.sunatBaseUrl = sunatBaseUrl;
        this.database = database;
    }

    /**
     * Runs the ETL. The checks against truncated files and against files that remove too much are off, since test
     * classes load registries of every size one after another; {@link #runKeeping} and {@link #runRemovingAtMost}
     * turn them on.
     */
    public EtlRun run(String... args) {
        return runKeeping(0, args);
    }

    /** {@link #run}, refusing a padrón with fewer records than {@code minRetainedShare} of the registry in service. */
    public EtlRun runKeeping(double minRetainedShare, String... args) {
        return withConfig(minRetainedShare, args, this::runWith);
    }

    /** {@link #run}, refusing a file that removes more than {@code maxRemovedShare} of the data in service. */
    public EtlRun runRemovingAtMost(double maxRemovedShare, String... args) {
        return withConfig("", 0, maxRemovedShare, "", args, this::runWith);
    }

    /**
     * {@link #run} in {@code environment} ({@code development} or {@code production}), with {@code etl} settings
     * (name, YAML value) added to the {@code etl:} section.
     */
    public EtlRun runConfigured(String environment, Map<String, String> etl, String... args) {
        StringBuilder more = new StringBuilder();
        etl.forEach((name, value) -> more.append("  ").append(name).append(": ").append(value).append('\n'));
        return withConfig("environment: " + environment + "\n", 0, 1, more.toString(), args, this::runWith);
    }

    /**
     * Runs the ETL as {@link #run} does, on a thread of its own, and cancels it the way SIGTERM does
     * ({@link QuipuEtl#cancel}) as soon as {@code ready} holds (it must within 60 s).
     */
    public EtlRun runCanceledWhen(Callable<Boolean> ready, String... args) {
        return withConfig(0, args, full -> {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            QuipuEtl process = new QuipuEtl(clock, new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8));
            AtomicReference<Integer> code = new AtomicReference<>();
            Thread run = Thread.ofPlatform().start(() -> code.set(process.run(full)));
            try {
                await().atMost(Duration.ofSeconds(60)).until(ready);
            } finally {
                process.cancel(Duration.ofSeconds(60));
                join(run);
            }
            return new EtlRun(code.get(), out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        });
    }

    /**
     * Runs the ETL as {@link #run} does while another thread runs {@code readOnce} over and over (a reader of the
     * data being loaded), from before the run starts until it has ended.
     */
    public EtlRun runWhile(Runnable readOnce, String... args) {
        AtomicBoolean running = new AtomicBoolean(true);
        Thread reader = Thread.ofPlatform().start(() -> {
            while (running.get()) {
                readOnce.run();
            }
        });
        try {
            return run(args);
        } finally {
            running.set(false);
            join(reader);
        }
    }

    private static void join(Thread thread) {
        try {
            thread.join(Duration.ofSeconds(60));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the ETL run ended", e);
        }
    }

    /** {@code action} on {@code args} with a configuration file of the test database appended, then deleted. */
    private EtlRun withConfig(double minRetainedShare, String[] args, Function<String[], EtlRun> action) {
        return withConfig("", minRetainedShare, 1, "", args, action);
    }

    private EtlRun withConfig(String top, double minRetainedShare, double maxRemovedShare, String etl, String[] args,
                              Function<String[], EtlRun> action) {
        try {
            Path config = Files.createTempFile("quipu-etl-", ".yml");
            try {
                Files.writeString(config, top + """
                        database:
                          embeddedDataDirectory: %s
                        bcrp:
                          baseUrl: %s
                          attemptTimeout: 1400ms
                          maxAttempts: 3
                          retryWait: 200ms
                        sunatFx:
                          baseUrl: %s
                          attemptTimeout: 1400ms
                          maxAttempts: 3
                          retryWait: 200ms
                        changes:
                          maxRemovedShare: %s
                        etl:
                          maxRejectedShare: 0.001
                          minRetainedShare: %s
                        """.formatted(database.dataDirectory(), bcrp.baseUrl(), sunatBaseUrl, maxRemovedShare,
                                minRetainedShare)
                        + etl);
                String[] full = Arrays.copyOf(args, args.length + 1);
                full[args.length] = config.toString();
                return action.apply(full);
            } finally {
                Files.deleteIfExists(config);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Runs the ETL with {@code args} as they are, the configuration file last. */
    public EtlRun runWith(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = new QuipuEtl(clock, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8)).run(args);
        return new EtlRun(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** The run's execution context, the record Spring Batch keeps of it beside its counts and status. */
    public Map<String, Object> runContext(long runId) {
        return context(database.texts("""
                select coalesce(serialized_context, short_context) from batch_job_execution_context
                 where job_execution_id = ?""", runId).getFirst());
    }

    /** The execution context of the run's step {@code step}. */
    public Map<String, Object> stepContext(long runId, String step) {
        return context(database.texts("""
                select coalesce(c.serialized_context, c.short_context) from batch_step_execution_context c
                  join batch_step_execution s on s.step_execution_id = c.step_execution_id
                 where s.job_execution_id = ? and s.step_name = ?""", runId, step).getFirst());
    }

    private static Map<String, Object> context(String stored) {
        try {
            return new DefaultExecutionContextSerializer().deserialize(
                    new ByteArrayInputStream(stored.getBytes(StandardCharsets.ISO_8859_1)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The outbox's etl.run.* events of one run, oldest first, each as {type, data}. */
    public List<JsonNode> events(long runId) {
        return database.<JsonNode>rows("""
                select type, data from events where type like 'etl.run.%' and (data->>'runId')::bigint = ?
                order by seq""", rs -> {
            try {
                return json.createObjectNode().put("type", rs.getString(1)).set("data", json.readTree(rs.getString(2)));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }, runId);
    }
}
