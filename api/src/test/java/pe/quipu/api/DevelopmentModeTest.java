package pe.quipu.api;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.platform.DevelopmentMode;
import pe.quipu.api.testing.ConfigFiles;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.api.testing.StandardErrorTee;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A forgotten {@code QUIPU_ENV} means development, which relaxes what production refuses: every start says so loudly,
 * naming each thing relaxed, and {@code GET /v1/status} says which environment answers.
 */
class DevelopmentModeTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    @Test
    void a_start_without_quipu_env_warns_once_naming_what_is_relaxed_and_status_says_development() {
        String log;
        QuipuExtension.Instance instance;
        try (StandardErrorTee tee = StandardErrorTee.open()) {
            // config.yml's own environment: ${QUIPU_ENV:-development}, with QUIPU_ENV unset.
            instance = quipu.startInstance(Map.of("webhooks.allowPrivateNetworks", "true"));
            log = tee.text();
        }
        try {
            List<String> warnings = log.lines().filter(line -> line.startsWith("WARN ")
                    && line.contains("DEVELOPMENT")).toList();
            assertThat(warnings).as(log).hasSize(1);
            String block = log.substring(log.indexOf(warnings.getFirst()));
            assertThat(block).contains("QUIPU_ENV", "webhooks.allowHttp", "webhooks.allowPrivateNetworks",
                    "JWT_SIGNING_KEY", "privacy.controller");
            assertThat(instance.body(instance.get("/v1/status", null)).path("environment").asText())
                    .isEqualTo("development");
        } finally {
            instance.stop();
        }
        assertThat(quipu.body(quipu.get("/v1/status", null)).path("environment").asText()).isEqualTo("development");
    }

    @Test
    void each_relaxation_is_named_only_while_it_is_in_use() throws Exception {
        String yaml = Files.readString(Path.of("..", "config.yml"));
        assertThat(ConfigFiles.read(yaml).developmentRelaxations()).hasSize(4)
                .anySatisfy(r -> assertThat(r).contains("webhooks.allowHttp"))
                .anySatisfy(r -> assertThat(r).contains("QUIPU_ADMIN_TOKEN_FILE"))
                .anySatisfy(r -> assertThat(r).contains("JWT_SIGNING_KEY"))
                .anySatisfy(r -> assertThat(r).contains("privacy.controller"));
        // Development with every production setting made: nothing relaxed, though the warning still says development.
        String strict = yaml.replace("  # allowHttp: false", "  allowHttp: false")
                .replace("signingKeyFile: ${JWT_SIGNING_KEY:-}", "signingKeyFile: /etc/quipu/jwt.json")
                .replace("tokenFile: ${QUIPU_ADMIN_TOKEN_FILE:-}", "tokenFile: /etc/quipu/admin-token")
                .replaceAll("(QUIPU_PRIVACY_CONTROLLER_\\w+:-)PLACEHOLDER", "$1Set");
        assertThat(ConfigFiles.read(strict).developmentRelaxations()).isEmpty();
        assertThat(DevelopmentMode.warning(List.of())).contains("DEVELOPMENT", "QUIPU_ENV=production");
        String private_ = yaml.replace("allowPrivateNetworks: ${QUIPU_WEBHOOKS_ALLOW_PRIVATE_NETWORKS:-false}",
                "allowPrivateNetworks: true");
        assertThat(ConfigFiles.read(private_).developmentRelaxations())
                .anySatisfy(r -> assertThat(r).contains("webhooks.allowPrivateNetworks"));
        assertThat(ConfigFiles.read(strict.replace("environment: ${QUIPU_ENV:-development}", "environment: production"))
                .developmentRelaxations()).isEmpty();
    }

    @Test
    void a_production_start_says_production_and_warns_of_nothing() {
        Map<String, String> production = new LinkedHashMap<>();
        production.put("environment", "production");
        production.put("auth.signingKeyFile", quipu.database.folder().resolve("jwt-signing-key.json").toString());
        production.put("adminTasks.tokenFile", quipu.database.folder().resolve("admin-token").toString());
        production.put("privacy.controller.nombre", "Quipu S.A.C.");
        production.put("privacy.controller.documento", "20100227461");
        production.put("privacy.controller.email", "privacidad@quipu.example");
        production.put("privacy.controller.domicilio", "Av. Arequipa 123, Lima");
        String log;
        QuipuExtension.Instance instance;
        try (StandardErrorTee tee = StandardErrorTee.open()) {
            instance = quipu.startInstance(production);
            log = tee.text();
        }
        try {
            assertThat(log).doesNotContain("DEVELOPMENT");
            assertThat(instance.body(instance.get("/v1/status", null)).path("environment").asText())
                    .isEqualTo("production");
        } finally {
            instance.stop();
        }
    }
}
