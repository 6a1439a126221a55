package pe.quipu.api.webhooks;

import io.dropwizard.configuration.ConfigurationException;
import io.dropwizard.configuration.ConfigurationValidationException;
import io.dropwizard.configuration.DefaultConfigurationFactoryFactory;
import io.dropwizard.configuration.EnvironmentVariableSubstitutor;
import io.dropwizard.configuration.FileConfigurationSourceProvider;
import io.dropwizard.configuration.SubstitutingSourceProvider;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.validation.BaseValidator;
import org.junit.jupiter.api.Test;
import pe.quipu.api.QuipuConfiguration;

import java.io.IOException;
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
        WebhooksSettings webhooks = read(Files.readString(CONFIG)).getWebhooks();
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
        assertThat(read(production).isProduction()).isTrue();
        for (String setting : List.of("  # allowHttp: false", "  allowPrivateNetworks: ${QUIPU_WEBHOOKS_ALLOW_PRIVATE_NETWORKS:-false}")) {
            String unsafe = production.replace(setting, setting.contains("allowHttp")
                    ? "  allowHttp: true" : "  allowPrivateNetworks: true");
            assertThat(unsafe).isNotEqualTo(production);
            assertThatThrownBy(() -> read(unsafe)).isInstanceOf(ConfigurationValidationException.class)
                    .hasMessageContaining("never on in production");
        }
    }

    @Test
    void anEmptyRetryScheduleIsRefused() throws Exception {
        String config = Files.readString(CONFIG).replace("retrySchedule: [0s, 1m, 5m, 30m, 2h, 6h, 24h, 48h]",
                "retrySchedule: []");
        assertThatThrownBy(() -> read(config)).isInstanceOf(ConfigurationValidationException.class)
                .hasMessageContaining("webhooks.retrySchedule");
    }

    private static QuipuConfiguration read(String yaml) throws IOException, ConfigurationException {
        Path file = Files.createTempFile("quipu-config-", ".yml");
        try {
            Files.writeString(file, yaml);
            return new DefaultConfigurationFactoryFactory<QuipuConfiguration>()
                    .create(QuipuConfiguration.class, BaseValidator.newValidator(), Jackson.newObjectMapper(), "dw")
                    .build(new SubstitutingSourceProvider(new FileConfigurationSourceProvider(),
                            new EnvironmentVariableSubstitutor(false)), file.toString());
        } finally {
            Files.deleteIfExists(file);
        }
    }
}
