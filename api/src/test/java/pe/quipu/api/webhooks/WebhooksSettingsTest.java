package pe.quipu.api.webhooks;

import io.dropwizard.configuration.ConfigurationValidationException;
import org.junit.jupiter.api.Test;
import pe.quipu.api.testing.ConfigFiles;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The {@code webhooks:} section as the API reads config.yml: its defaults, and what production refuses. */
class WebhooksSettingsTest {

    private static final Path CONFIG = Path.of("..", "config.yml");

    @Test
    void theRepositoryConfigurationHasTheContractsDefaults() throws Exception {
        WebhooksSettings webhooks = ConfigFiles.read(Files.readString(CONFIG)).getWebhooks();
        assertThat(webhooks.retrySchedule()).containsExactly(Duration.ZERO, Duration.ofMinutes(1),
                Duration.ofMinutes(5), Duration.ofMinutes(30), Duration.ofHours(2), Duration.ofHours(6),
                Duration.ofHours(24), Duration.ofHours(48));
        assertThat(webhooks.timeout()).isEqualTo(Duration.ofSeconds(10));
        assertThat(webhooks.disableAfter()).isEqualTo(Duration.ofDays(5));
        assertThat(webhooks.retention()).isEqualTo(Duration.ofDays(30));
        assertThat(webhooks.rotationGrace()).isEqualTo(Duration.ofHours(24));
        assertThat(webhooks.isAllowPrivateNetworks()).isFalse();
        assertThat(webhooks.isWorkerEnabled()).isTrue();
        assertThat(webhooks.allowHttp(false)).isTrue();
        assertThat(webhooks.allowHttp(true)).isFalse();
    }

    @Test
    void productionRefusesHttpAndPrivateNetworks() throws Exception {
        // A production start also needs the privacy controller (PrivacySettingsTest): set, not placeholders.
        String production = Files.readString(CONFIG).replace("environment: ${QUIPU_ENV:-development}",
                "environment: production").replaceAll("(QUIPU_PRIVACY_CONTROLLER_\\w+:-)PLACEHOLDER", "$1Set");
        assertThat(ConfigFiles.read(production).isProduction()).isTrue();
        for (String setting : List.of("  # allowHttp: false", "  allowPrivateNetworks: ${QUIPU_WEBHOOKS_ALLOW_PRIVATE_NETWORKS:-false}")) {
            String unsafe = production.replace(setting, setting.contains("allowHttp")
                    ? "  allowHttp: true" : "  allowPrivateNetworks: true");
            assertThat(unsafe).isNotEqualTo(production);
            assertThatThrownBy(() -> ConfigFiles.read(unsafe)).isInstanceOf(ConfigurationValidationException.class)
                    .hasMessageContaining("never on in production");
        }
    }

    @Test
    void anEmptyRetryScheduleIsRefused() throws Exception {
        String config = Files.readString(CONFIG).replace("retrySchedule: [0s, 1m, 5m, 30m, 2h, 6h, 24h, 48h]",
                "retrySchedule: []");
        assertThatThrownBy(() -> ConfigFiles.read(config)).isInstanceOf(ConfigurationValidationException.class)
                .hasMessageContaining("webhooks.retrySchedule");
    }
}
