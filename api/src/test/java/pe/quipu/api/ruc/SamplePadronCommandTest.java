package pe.quipu.api.ruc;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.testing.QuipuCommandLine.Result;
import pe.quipu.api.testing.QuipuCommandLine;
import pe.quipu.api.testing.QuipuExtension;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The operator's sample-padron command, run against the same embedded data directory while the API is running (the
 * test app is up; the command attaches to its server and must not stop it).
 */
class SamplePadronCommandTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    @Test
    void sample_padron_loads_the_bundled_lines_and_a_rerun_changes_nothing() throws Exception {
        Result first = run("sample-padron");
        assertThat(first.error()).isEmpty();
        assertThat(first.stdout()).startsWith("sample-padron: 61 records read, ");

        String key = quipu.accounts.newKey(Scope.RUC_READ);
        var before = quipu.get("/v1/ruc/20100227461", key);
        assertThat(before.statusCode()).isEqualTo(200);
        assertThat(quipu.body(before).path("direccion").asText())
                .isEqualTo("AV. FRANCISCO BOLOGNESI NRO. 495 ZONA INDUSTRIAL");

        quipu.clock.advance(Duration.ofDays(1));
        Result again = run("sample-padron");
        assertThat(again.stdout().strip()).isEqualTo("sample-padron: 61 records read, 0 inserted or changed");
        var after = quipu.get("/v1/ruc/20100227461", key);
        assertThat(after.headers().firstValue("ETag")).isEqualTo(before.headers().firstValue("ETag"));
        assertThat(quipu.body(after).path("actualizado")).isEqualTo(quipu.body(before).path("actualizado"));
    }

    private static Result run(String... args) {
        return QuipuCommandLine.run(quipu, args);
    }
}
