package pe.quipu.core.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code java <options> -cp <classPath> <main> <args>} in a JVM of its own, as the launcher runs an AOT training or a
 * command with its cache, its output in a log file. Its environment names a database nobody can reach and
 * development: a training isolates itself, so nothing of the environment's database may matter.
 */
public final class ChildJvm {

    private ChildJvm() {
    }

    /**
     * Runs the JVM to its end and returns its exit code; one still running after {@code limit} is killed, and the
     * test fails with its log.
     */
    public static int run(Path log, Duration limit, List<String> options, String classPath, String main,
                          String... args) throws IOException, InterruptedException {
        List<String> line = new ArrayList<>();
        line.add(ProcessHandle.current().info().command().orElseThrow());
        line.addAll(options);
        line.addAll(List.of("-cp", classPath, main));
        line.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(line).redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().put("DATABASE_URL", "jdbc:postgresql://192.0.2.1:1/never-used");
        builder.environment().put("QUIPU_ENV", "development");
        Process child = builder.start();
        try {
            if (!child.waitFor(limit.toSeconds(), TimeUnit.SECONDS)) {
                throw new AssertionError("still running after " + limit + ":\n" + Files.readString(log));
            }
            return child.exitValue();
        } finally {
            if (child.isAlive()) {
                child.destroyForcibly().waitFor(20, TimeUnit.SECONDS);
            }
        }
    }
}
