package pe.quipu.etl;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The ETL's command line, parsed by picocli: what it runs, what it refuses in one line, and its help. */
class EtlCommandTest {

    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-10-07T15:00:00Z"), ZoneOffset.UTC);

    @Test
    void a_job_its_options_and_the_config_file_in_any_order() {
        EtlCommand command = EtlCommand.parse(new String[] {"padron", "--file", "day1.zip", "config.yml"}, CLOCK);
        assertThat(command.job()).isEqualTo(EtlJob.PADRON);
        assertThat(command.options()).isEqualTo(Map.of("file", "day1.zip"));
        assertThat(command.config()).isEqualTo(Path.of("config.yml"));

        EtlCommand after = EtlCommand.parse(new String[] {"tipo-cambio", "config.yml", "--fuente", "bcrp"}, CLOCK);
        assertThat(after.options()).isEqualTo(Map.of("fuente", "bcrp"));
        assertThat(after.config()).isEqualTo(Path.of("config.yml"));
    }

    @Test
    void each_wrong_command_line_is_one_line_naming_the_fault() {
        assertRefused("unknown job 'nope'", "nope", "config.yml");
        assertRefused("padron takes --", "padron", "--bogus", "x", "config.yml");
        assertRefused("config.yml", "padron", "--file", "day1.zip");
        assertRefused("--file", "ubigeo", "--file");
        assertRefused("--fuente", "tipo-cambio", "--fuente", "all", "--fuente", "bcrp", "config.yml");
        assertRefused("give --file or --url, not both", "padron", "--file", "a", "--url", "https://x/a", "config.yml");
        assertRefused("expected <job>");
    }

    @Test
    void help_describes_the_job_and_its_options_and_runs_nothing() {
        String help = EtlCommand.help(new String[] {"padron", "--help"}).orElseThrow();
        assertThat(help).contains("./quipu etl padron", "--file=PATH", "--url=URL", "config.yml",
                "padrón reducido");
        assertThat(EtlCommand.help(new String[] {"tipo-cambio", "-h"}).orElseThrow())
                .contains("--fuente=bcrp|sbs|sunat|all", "--from=YYYY-MM-DD", "--to=YYYY-MM-DD");
        assertThat(EtlCommand.help(new String[] {"--help"})).hasValue("");
        assertThat(EtlCommand.help(new String[] {"padron", "--file", "a", "config.yml"})).isEmpty();
    }

    @Test
    void the_etl_prints_the_help_on_standard_output_and_exits_0() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = new QuipuEtl(CLOCK, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8)).run(new String[] {"padron", "--help"});
        assertThat(code).isEqualTo(QuipuEtl.SUCCEEDED);
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("--file=PATH");
        assertThat(err.toString(StandardCharsets.UTF_8)).isEmpty();

        out.reset();
        code = new QuipuEtl(CLOCK, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8)).run(new String[] {"--help"});
        assertThat(code).isEqualTo(QuipuEtl.SUCCEEDED);
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("usage: ./quipu etl <job>", "locales-anexos");
    }

    private static void assertRefused(String naming, String... args) {
        assertThatThrownBy(() -> EtlCommand.parse(args, CLOCK))
                .as(String.join(" ", args))
                .isInstanceOf(EtlCommand.UsageException.class)
                .hasMessageContaining(naming)
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }
}
