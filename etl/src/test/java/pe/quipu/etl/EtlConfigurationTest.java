package pe.quipu.etl;

import io.dropwizard.configuration.ConfigurationException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import pe.quipu.api.QuipuConfiguration;
import pe.quipu.api.testing.ConfigFiles;
import pe.quipu.etl.testing.EtlRun;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The API and the ETL read the repository's one config.yml: the sections they share come out as the same settings,
 * parsed, substituted and validated the same way, and a value the API would refuse, the ETL refuses too.
 */
class EtlConfigurationTest {

    private static final Path CONFIG = Path.of("..", "config.yml");

    private final List<Path> files = new ArrayList<>();

    @AfterEach
    void deleteFiles() throws IOException {
        for (Path file : files) {
            Files.deleteIfExists(file);
        }
    }

    @Test
    void the_api_and_the_etl_read_the_same_database_and_bcrp_settings_from_config_yml() throws Exception {
        QuipuConfiguration api = ConfigFiles.read(CONFIG);
        EtlConfiguration etl = EtlConfiguration.read(CONFIG);

        assertThat(etl.database()).isEqualTo(api.getDatabase());
        assertThat(etl.bcrp()).isEqualTo(api.getBcrp());
        // The ETL's lighter mapper (EtlConfiguration.mapper) binds every shared section as Dropwizard's does.
        assertThat(etl.sunatFx()).isEqualTo(api.getSunatFx());
        assertThat(etl.search()).usingRecursiveComparison().isEqualTo(api.getSearch());
        assertThat(etl.changes()).usingRecursiveComparison().isEqualTo(api.getChanges());
        assertThat(etl.environment()).isEqualTo(api.getEnvironment());
        // ${DATABASE_URL:-} and the like: unset in the test's environment, so the embedded server over ./data.
        assertThat(etl.database().external()).isFalse();
        assertThat(etl.database().embeddedDataDirectory()).isEqualTo(Path.of("./data/postgres"));
        assertThat(etl.etl().maxRejectedShare()).isEqualTo(0.001);
        assertThat(etl.etl().minRetainedShare()).isEqualTo(0.9);
        assertThat(etl.etl().maxDownloadBytes()).isEqualTo(4_000_000_000L);
        // QUIPU_ETL_ALLOW_HTTP unset: plain http in development only.
        assertThat(etl.etl().allowHttp(false)).isTrue();
        assertThat(etl.etl().allowHttp(true)).isFalse();
    }

    @Test
    void durations_parse_identically_in_both() throws Exception {
        QuipuConfiguration api = ConfigFiles.read(CONFIG);
        EtlConfiguration etl = EtlConfiguration.read(CONFIG);

        assertThat(etl.bcrp().attemptTimeout()).isEqualTo(Duration.ofMillis(1400))
                .isEqualTo(api.getBcrp().attemptTimeout());
        assertThat(etl.bcrp().retryWait()).isEqualTo(Duration.ofMillis(200)).isEqualTo(api.getBcrp().retryWait());
        assertThat(etl.bcrp().captureInterval()).isEqualTo(Duration.ofMinutes(30))
                .isEqualTo(api.getBcrp().captureInterval());
        assertThat(etl.bcrp().worstCase()).isEqualTo(api.getBcrp().worstCase());
    }

    @Test
    void a_dw_system_property_overrides_a_value_in_both_as_in_the_api() throws Exception {
        System.setProperty("dw.bcrp.maxAttempts", "5");
        try {
            assertThat(EtlConfiguration.read(CONFIG).bcrp().maxAttempts()).isEqualTo(5);
            assertThat(ConfigFiles.read(CONFIG).getBcrp().maxAttempts()).isEqualTo(5);
        } finally {
            System.clearProperty("dw.bcrp.maxAttempts");
        }
    }

    @Test
    void an_invalid_value_is_refused_by_the_etl_with_a_message_naming_the_setting() throws Exception {
        Path attempts = configWith("  maxAttempts: 3\n", "  maxAttempts: 9\n");
        assertThatThrownBy(() -> EtlConfiguration.read(attempts)).isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("bcrp.maxAttempts");
        assertThatThrownBy(() -> ConfigFiles.read(attempts)).isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("bcrp.maxAttempts");

        Path share = configWith("  maxRejectedShare: 0.001\n", "  maxRejectedShare: 2\n");
        assertThatThrownBy(() -> EtlConfiguration.read(share)).isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("etl.maxRejectedShare");

        Path duration = configWith("  attemptTimeout: 1400ms\n", "  attemptTimeout: soon\n");
        assertThatThrownBy(() -> EtlConfiguration.read(duration)).isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("attemptTimeout");
    }

    @Test
    void a_misspelt_name_in_a_shared_section_is_refused_while_the_apis_own_sections_are_ignored() throws Exception {
        Path misspelt = configWith("  maxAttempts: 3\n", "  maxAttemps: 3\n");
        assertThatThrownBy(() -> EtlConfiguration.read(misspelt)).isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("bcrp.maxAttemps");
        assertThatThrownBy(() -> ConfigFiles.read(misspelt)).isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("bcrp.maxAttemps");

        Path onlyTheEtls = file("""
                database:
                  embeddedDataDirectory: /tmp/somewhere
                etl:
                  minRetainedShare: 0
                """);
        EtlConfiguration etl = EtlConfiguration.read(onlyTheEtls);
        assertThat(etl.database().embeddedDataDirectory()).isEqualTo(Path.of("/tmp/somewhere"));
        assertThat(etl.etl().minRetainedShare()).isZero();
        assertThat(etl.etl().maxRejectedShare()).isEqualTo(0.001);
        assertThat(etl.bcrp().maxAttempts()).isEqualTo(3);
    }

    @Test
    void an_invalid_configuration_fails_the_run_with_exit_code_1_and_one_line_naming_the_setting() throws Exception {
        Path share = configWith("  maxRejectedShare: 0.001\n", "  maxRejectedShare: 2\n");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = new QuipuEtl(Clock.systemUTC(), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8)).run(new String[] {"ubigeo", share.toString()});
        EtlRun run = new EtlRun(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));

        assertThat(run.exitCode()).isEqualTo(QuipuEtl.FAILED);
        assertThat(run.stdout()).isEmpty();
        assertThat(run.stderr()).startsWith("quipu-etl: " + share + " has an error: etl.maxRejectedShare ")
                .endsWith("\n");
        assertThat(run.stderr().strip().lines()).hasSize(1);
    }


    /** The repository's config.yml with one line replaced. */
    private Path configWith(String line, String replacement) throws IOException {
        String config = Files.readString(CONFIG);
        assertThat(config).contains(line);
        return file(config.replace(line, replacement));
    }

    private Path file(String content) throws IOException {
        Path file = Files.createTempFile("quipu-config-", ".yml");
        files.add(file);
        Files.writeString(file, content);
        return file;
    }
}
