package pe.quipu.etl;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code ./quipu help}: every command listed at once, without a JDK build or a jar; and the JVM options the launcher
 * gives each jar.
 */
class LauncherHelpTest {

    @Test
    void help_lists_every_command_the_etl_and_the_generators_included_and_exits_0() throws Exception {
        for (List<String> command : List.<List<String>>of(List.of("help"), List.of("--help"), List.of())) {
            List<String> line = new java.util.ArrayList<>(List.of("sh", "../quipu"));
            line.addAll(command);
            Process process = new ProcessBuilder(line).directory(new File(".")).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(process.waitFor(10, TimeUnit.SECONDS)).as("answered within 10 s").isTrue();
            assertThat(process.exitValue()).as(String.join(" ", line)).isZero();
            assertThat(output).contains("server config.yml", "deliver config.yml", "create-key", "revoke-key",
                    "sample-padron", "task NAME", "db migrate", "etl padron", "etl tipo-cambio", "locales-anexos",
                    "generate-padron --rows", "generate-padron --changes-from", "generate-sunat-lists")
                    .doesNotContain("Building");
        }
    }

    /** A folder with the launcher and no sources: a copy of the jars, here without them. */
    @Test
    void without_sources_it_never_builds_and_says_what_to_do(@TempDir Path copy) throws Exception {
        Files.copy(Path.of("..", "quipu"), copy.resolve("quipu"));
        Files.createDirectories(copy.resolve(".mvn"));
        Files.copy(Path.of("..", ".mvn", "jdk.sh"), copy.resolve(".mvn").resolve("jdk.sh"));

        Run help = run(copy, "generate-padron", "--help");
        Run server = run(copy, "server", "config.yml");

        assertThat(help.exit()).as(help.output()).isZero();
        assertThat(help.output()).contains("generate-padron --rows", "is not built yet").doesNotContain("Building");
        assertThat(server.exit()).as(server.output()).isEqualTo(1);
        assertThat(server.output()).contains("no sources to build it from", "copy the built jar")
                .doesNotContain("Building");
    }

    /**
     * An ETL job gets a 256 MB heap and G1 (the comparison of the real padrón's records with the registry needs
     * about 230 MB: a 128 MB heap sends a reload of it down the slower path in the database), the API 128 MB and
     * Parallel GC; a -Xmx of the operator's comes after and wins. Jars that print their JVM's options stand in for
     * the real ones.
     */
    @Test
    void an_etl_job_runs_with_a_256_mb_heap_and_g1_and_the_api_with_128_mb_and_parallel_gc(@TempDir Path copy)
            throws Exception {
        Files.copy(Path.of("..", "quipu"), copy.resolve("quipu"));
        Files.createDirectories(copy.resolve(".mvn"));
        Files.copy(Path.of("..", ".mvn", "jdk.sh"), copy.resolve(".mvn").resolve("jdk.sh"));
        optionsPrinter(copy.resolve("etl/target/quipu-etl.jar"));
        optionsPrinter(copy.resolve("api/target/quipu-api.jar"));
        Map<String, String> noCache = Map.of("QUIPU_AOT", "off");

        Run etl = run(copy, noCache, "etl", "padron", "--file", "x.zip", "config.yml");
        Run server = run(copy, noCache, "server", "config.yml");
        Run raised = run(copy, Map.of("QUIPU_AOT", "off", "QUIPU_JAVA_OPTS", "-Xmx512m"), "etl", "ubigeo",
                "config.yml");

        assertThat(etl.exit()).as(etl.output()).isZero();
        assertThat(etl.output()).contains("options: [-Xmx256m]").doesNotContain("-XX:+UseParallelGC");
        assertThat(server.output()).contains("options: [-Xmx128m, -XX:+UseParallelGC]");
        assertThat(raised.output()).contains("options: [-Xmx256m, -Xmx512m]");
    }

    /** What the stand-in jars run: prints the JVM's options. */
    public static final class PrintOptions {
        public static void main(String[] args) {
            System.out.println("options: " + ManagementFactory.getRuntimeMXBean().getInputArguments());
        }
    }

    /** A jar whose Main-Class is {@link PrintOptions}, found through its Class-Path in this module's test classes. */
    private static void optionsPrinter(Path jar) throws Exception {
        Files.createDirectories(jar.getParent());
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, PrintOptions.class.getName());
        manifest.getMainAttributes().put(Attributes.Name.CLASS_PATH,
                PrintOptions.class.getProtectionDomain().getCodeSource().getLocation().toString());
        try (JarOutputStream ignored = new JarOutputStream(Files.newOutputStream(jar), manifest)) {
            // the manifest alone
        }
    }

    private record Run(int exit, String output) {
    }

    private static Run run(Path folder, String... arguments) throws Exception {
        return run(folder, Map.of(), arguments);
    }

    private static Run run(Path folder, Map<String, String> environment, String... arguments) throws Exception {
        List<String> line = new java.util.ArrayList<>(List.of("sh", folder.resolve("quipu").toString()));
        line.addAll(List.of(arguments));
        ProcessBuilder builder = new ProcessBuilder(line).directory(folder.toFile()).redirectErrorStream(true);
        builder.environment().remove("QUIPU_JAVA_OPTS");
        builder.environment().putAll(environment);
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("answered within 30 s").isTrue();
        return new Run(process.exitValue(), output);
    }
}
