package pe.quipu.etl;

import org.junit.jupiter.api.Test;

import java.io.File;
import java.nio.charset.StandardCharsets;
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
}
