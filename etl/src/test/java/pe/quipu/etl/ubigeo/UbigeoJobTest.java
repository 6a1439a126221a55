package pe.quipu.etl.ubigeo;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.core.ubigeo.UbigeoCsv;
import pe.quipu.etl.testing.EtlRun;
import pe.quipu.etl.testing.EtlRunner;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The ubigeo job replaces the table while the API runs; the API's in-memory catalogue follows through the
 * {@code quipu_ubigeos} notification, without a restart. Other tests rely on the bundled names, so the test
 * puts the bundled catalogue back before it ends.
 */
class UbigeoJobTest {

    private static final String CODE = "250306";

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();
    private static final EtlRunner etl = new EtlRunner(quipu.clock, quipu.bcrp, quipu.database);

    private final String key = quipu.accounts.newKey(Scope.UBIGEOS_READ);

    @AfterEach
    void restoreBundledCatalogue() {
        EtlRun run = etl.run("ubigeo");
        assertThat(run.exitCode()).as(run.stderr()).isZero();
        await().atMost(Duration.ofSeconds(2)).untilAsserted(() ->
                assertThat(distrito()).isEqualTo("Huipoca"));
    }

    @Test
    void a_replaced_catalogue_is_served_within_two_seconds_without_a_restart() throws Exception {
        assertThat(distrito()).isEqualTo("Huipoca");
        String bundled;
        try (InputStream in = UbigeoCsv.class.getResourceAsStream(UbigeoCsv.BUNDLED)) {
            bundled = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        String renamed = bundled.replace("Ucayali;Padre Abad;Huipoca;250306;", "Ucayali;Padre Abad;Huipoca Nueva;250306;");
        assertThat(renamed).isNotEqualTo(bundled);
        Path file = Files.createTempFile("ubigeo-", ".csv");
        Files.writeString(file, renamed, StandardCharsets.UTF_8);
        try {
            EtlRun run = etl.run("ubigeo", "--file", file.toString());
            assertThat(run.exitCode()).as(run.stdout() + run.stderr()).isZero();

            await().atMost(Duration.ofSeconds(2)).pollInterval(Duration.ofMillis(50)).untilAsserted(() ->
                    assertThat(distrito()).isEqualTo("Huipoca Nueva"));
        } finally {
            Files.deleteIfExists(file);
        }
    }

    private String distrito() {
        var response = quipu.get("/v1/ubigeos/" + CODE, key);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return quipu.body(response).path("distrito").asText();
    }
}
