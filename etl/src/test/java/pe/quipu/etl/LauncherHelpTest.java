package pe.quipu.etl;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code ./quipu help}: every command listed at once, without a JDK build or a jar. */
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

    private record Run(int exit, String output) {
    }

    private static Run run(Path folder, String... arguments) throws Exception {
        List<String> line = new java.util.ArrayList<>(List.of("sh", folder.resolve("quipu").toString()));
        line.addAll(List.of(arguments));
        Process process = new ProcessBuilder(line).directory(folder.toFile()).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("answered within 30 s").isTrue();
        return new Run(process.exitValue(), output);
    }
}
