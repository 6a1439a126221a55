package pe.quipu.etl.testing;

import pe.quipu.core.testing.TestDatabase;
import pe.quipu.etl.QuipuEtl;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code quipu-etl <args…> config.yml} in a JVM of its own ({@code java -cp <this JVM's class path> QuipuEtl}), on the
 * test database, its output in a log file: for what only a separate process shows, a kill -9 in the middle of a
 * load, or what a run writes to its own standard output and standard error. The checks against truncated files and
 * files that remove too much are off, as in {@link EtlRunner#run}.
 * Close it: the process is killed if it still runs, and its files are deleted.
 */
public final class ChildEtl implements AutoCloseable {

    private final Process process;
    private final Path log;
    /** Standard output on its own, or null when it shares the log. */
    private final Path stdout;
    private final Path config;

    private ChildEtl(Process process, Path log, Path stdout, Path config) {
        this.process = process;
        this.log = log;
        this.stdout = stdout;
        this.config = config;
    }

    /** Standard output and standard error in one log. */
    public static ChildEtl start(TestDatabase database, String... args) throws IOException {
        return start(database, false, Map.of(), args);
    }

    /**
     * Standard output in a file of its own ({@link #stdout()}) and standard error in the log, as cron would keep them
     * apart; {@code etl} settings (name, YAML value) added to the configuration's {@code etl:} section.
     */
    public static ChildEtl startApart(TestDatabase database, Map<String, String> etl, String... args)
            throws IOException {
        return start(database, true, etl, args);
    }

    private static ChildEtl start(TestDatabase database, boolean apart, Map<String, String> etl, String... args)
            throws IOException {
        Path log = Files.createTempFile("quipu-child-etl-", ".log");
        Path stdout = apart ? Files.createTempFile("quipu-child-etl-", ".out") : null;
        Path config = Files.createTempFile("quipu-child-etl-", ".yml");
        StringBuilder more = new StringBuilder();
        etl.forEach((name, value) -> more.append("  ").append(name).append(": ").append(value).append('\n'));
        Files.writeString(config, """
                database:
                  embeddedDataDirectory: %s
                changes:
                  maxRemovedShare: 1
                etl:
                  minRetainedShare: 0
                """.formatted(database.dataDirectory()) + more);
        List<String> line = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow(),
                "-Xmx256m", "-cp", System.getProperty("java.class.path"), QuipuEtl.class.getName()));
        line.addAll(List.of(args));
        line.add(config.toString());
        ProcessBuilder builder = new ProcessBuilder(line);
        if (apart) {
            builder.redirectOutput(stdout.toFile()).redirectError(log.toFile());
        } else {
            builder.redirectErrorStream(true).redirectOutput(log.toFile());
        }
        return new ChildEtl(builder.start(), log, stdout, config);
    }

    public Process process() {
        return process;
    }

    /** The name its database connections give themselves ({@code QuipuDatabase.applicationName("etl")}). */
    public String applicationName() {
        return "quipu etl (pid " + process.pid() + ")";
    }

    /** What it has written so far (standard error alone, when started {@link #startApart apart}). */
    public String log() {
        return read(log);
    }

    /** What it has written to standard output so far, when started {@link #startApart apart}. */
    public String stdout() {
        if (stdout == null) {
            throw new IllegalStateException("standard output shares the log: start it apart");
        }
        return read(stdout);
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    @Override
    public void close() throws IOException {
        if (process.isAlive()) {
            process.destroyForcibly();
        }
        Files.deleteIfExists(log);
        if (stdout != null) {
            Files.deleteIfExists(stdout);
        }
        Files.deleteIfExists(config);
    }
}
