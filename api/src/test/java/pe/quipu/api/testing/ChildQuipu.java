package pe.quipu.api.testing;

import pe.quipu.core.testing.TestDatabase;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A Quipu command in a JVM of its own ({@code java <options> -cp <this JVM's class path> pe.quipu.api.QuipuApplication
 * <command> config.yml}), on the test database reached as an external PostgreSQL (config.yml reads DATABASE_URL,
 * DATABASE_USER, DATABASE_PASSWORD), in development, its output in {@code log}: for what only a separate process
 * shows (a kill -9, a bounded heap). The caller adds its own environment and starts (and ends) the process.
 */
public final class ChildQuipu {

    private ChildQuipu() {
    }

    public static ProcessBuilder command(TestDatabase database, Path log, List<String> jvmOptions, String command) {
        return command(database, log, jvmOptions, command, System.getProperty("java.class.path"));
    }

    /**
     * {@link #command(TestDatabase, Path, List, String)} on the main code's class path alone: without the tests'
     * classes and their logback-test.xml, the process logs as a deployed jar does, from its first line.
     */
    public static ProcessBuilder asDeployed(TestDatabase database, Path log, List<String> jvmOptions, String command) {
        String separator = System.getProperty("path.separator");
        String classPath = java.util.Arrays.stream(System.getProperty("java.class.path").split(separator))
                .filter(entry -> !entry.endsWith("test-classes") && !entry.endsWith("-tests.jar"))
                .collect(java.util.stream.Collectors.joining(separator));
        return command(database, log, jvmOptions, command, classPath);
    }

    private static ProcessBuilder command(TestDatabase database, Path log, List<String> jvmOptions, String command,
                                          String classPath) {
        List<String> line = new ArrayList<>();
        line.add(ProcessHandle.current().info().command().orElseThrow());
        // The development admin token beside the test database, as the in-process instances keep it.
        line.add("-Ddw.adminTasks.developmentTokenFile=" + database.folder().resolve("admin-token"));
        line.addAll(jvmOptions);
        line.addAll(List.of("-cp", classPath, "pe.quipu.api.QuipuApplication", command,
                Path.of("..", "config.yml").toAbsolutePath().toString()));
        ProcessBuilder builder = new ProcessBuilder(line).redirectErrorStream(true).redirectOutput(log.toFile());
        Map<String, String> env = builder.environment();
        env.put("DATABASE_URL", database.database().jdbcUrl());
        env.put("DATABASE_USER", database.database().user());
        env.put("DATABASE_PASSWORD", database.database().password());
        env.put("QUIPU_ENV", "development");
        // No warm-up: what these tests look at (memory, crashes, the heap) does not depend on the JIT having settled,
        // and WarmUpTest covers the warm-up itself.
        env.put("QUIPU_WARM_UP", "0s");
        return builder;
    }
}
