package pe.quipu.etl.testing;

import pe.quipu.core.testing.TestDatabase;
import pe.quipu.etl.QuipuEtl;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code quipu-etl <args…> config.yml} in a JVM of its own ({@code java -cp <this JVM's class path> QuipuEtl}), on the
 * test database, its output in a log file: for what only a separate process shows, a kill -9 in the middle of a
 * load. The checks against truncated files and files that remove too much are off, as in {@link EtlRunner#run}.
 * Close it: the process is killed if it still runs, and its files are deleted.
 */
public final class ChildEtl implements AutoCloseable {

    private final Process process;
    private final Path log;
    private final Path config;

    private ChildEtl(Process process, Path log, Path config) {
        this.process = process;
        this.log = log;
        this.config = config;
    }

    public static ChildEtl start(TestDatabase database, String... args) throws IOException {
        Path log = Files.createTempFile("quipu-child-etl-", ".log");
        Path config = Files.createTempFile("quipu-child-etl-", ".yml");
        Files.writeString(config, """
                database:
                  embeddedDataDirectory: %s
                changes:
                  maxRemovedShare: 1
                etl:
                  minRetainedShare: 0
                """.formatted(database.dataDirectory()));
        List<String> line = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow(),
                "-Xmx256m", "-cp", System.getProperty("java.class.path"), QuipuEtl.class.getName()));
        line.addAll(List.of(args));
        line.add(config.toString());
        Process process = new ProcessBuilder(line).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        return new ChildEtl(process, log, config);
    }

    public Process process() {
        return process;
    }

    /** The name its database connections give themselves ({@code QuipuDatabase.applicationName("etl")}). */
    public String applicationName() {
        return "quipu etl (pid " + process.pid() + ")";
    }

    /** What it has written so far. */
    public String log() {
        try {
            return Files.readString(log);
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
        Files.deleteIfExists(config);
    }
}
