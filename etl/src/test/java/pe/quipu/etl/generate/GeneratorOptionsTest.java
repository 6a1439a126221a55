package pe.quipu.etl.generate;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The generators' command line, parsed by picocli: typed values, one-line refusals, --help. */
class GeneratorOptionsTest {

    @Test
    void rows_out_and_seed_or_an_earlier_file_and_a_change_rate() {
        assertThat(GeneratorOptions.read(new String[] {"--rows", "1000", "--out", "/tmp/p.zip"}, true))
                .isEqualTo(new GeneratorOptions(1000, Path.of("/tmp/p.zip"), 42, null, 0));
        assertThat(GeneratorOptions.read(new String[] {"--changes-from", "a.zip", "--change-rate", "0.01",
                "--out", "b.zip", "--seed", "7"}, true))
                .isEqualTo(new GeneratorOptions(-1, Path.of("b.zip"), 7, Path.of("a.zip"), 0.01));
    }

    @Test
    void a_value_of_the_wrong_type_is_a_one_line_usage_error_not_a_stack_trace() {
        assertRefused("'abc'", "--rows", "abc", "--out", "p.zip");
        assertRefused("--seed", "--rows", "10", "--out", "p.zip", "--seed", "x");
        assertRefused("--change-rate", "--changes-from", "a.zip", "--change-rate", "one", "--out", "b.zip");
    }

    @Test
    void missing_contradictory_or_unknown_options_are_refused() {
        assertRefused("--out", "--rows", "10");
        assertRefused("--rows", "--out", "p.zip");
        assertRefused("go together", "--rows", "10", "--changes-from", "a.zip", "--change-rate", "0.01",
                "--out", "b.zip");
        assertRefused("go together", "--changes-from", "a.zip", "--change-rate", "2", "--out", "b.zip");
        assertRefused("--bogus", "--rows", "10", "--out", "p.zip", "--bogus", "1");
        // The lists' generator takes no --changes-from.
        assertThatThrownBy(() -> GeneratorOptions.read(new String[] {"--changes-from", "a.zip", "--out", "d"}, false))
                .isInstanceOf(GeneratorOptions.Refused.class).hasMessageContaining("--changes-from");
    }

    @Test
    void help_is_asked_for_not_an_error() {
        assertThatThrownBy(() -> GeneratorOptions.read(new String[] {"--help"}, true))
                .isInstanceOfSatisfying(GeneratorOptions.Refused.class, r -> assertThat(r.help()).isTrue());
    }

    private static void assertRefused(String naming, String... args) {
        assertThatThrownBy(() -> GeneratorOptions.read(args, true))
                .as(String.join(" ", args))
                .isInstanceOfSatisfying(GeneratorOptions.Refused.class, r -> {
                    assertThat(r.help()).isFalse();
                    assertThat(r.getMessage()).contains(naming).doesNotContain("\n");
                });
    }
}
