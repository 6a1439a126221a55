package pe.quipu.api.privacy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.configuration.ConfigurationValidationException;
import org.junit.jupiter.api.Test;
import pe.quipu.api.QuipuConfiguration;
import pe.quipu.api.testing.ConfigFiles;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The {@code privacy:} section as the API reads config.yml (contract §8): contract §8's names, placeholders in the
 * repository's file, and a production start refused while {@code privacy.controller} is unset.
 */
class PrivacySettingsTest {

    private static final Path CONFIG = Path.of("..", "config.yml");
    private static final String[] CONTROLLER = {"NOMBRE", "DOCUMENTO", "EMAIL", "DOMICILIO"};

    @Test
    void the_repository_configuration_ships_marked_placeholders_under_contract_names() throws Exception {
        QuipuConfiguration config = ConfigFiles.read(Files.readString(CONFIG));
        assertThat(config.isProduction()).isFalse();
        JsonNode compliance = new ObjectMapper().valueToTree(config.getPrivacy().compliance());
        assertThat(names(compliance)).containsExactly("registryNumber", "certificate", "controller", "transfers",
                "rights");
        assertThat(names(compliance.get("controller"))).containsExactly("nombre", "documento", "email", "domicilio");
        assertThat(compliance.get("transfers")).isNotEmpty();
        assertThat(names(compliance.get("transfers").get(0))).containsExactly("pais", "entidad", "finalidad");
        List<String> values = new ArrayList<>();
        compliance.forEach(v -> collect(v, values));
        assertThat(values).isNotEmpty().allSatisfy(v -> assertThat(v).startsWith("PLACEHOLDER"));
        assertThat(config.getPrivacy().isControllerSet()).isFalse();
    }

    @Test
    void production_refuses_to_start_while_the_controller_is_unset_and_names_the_setting() throws Exception {
        String production = production();
        assertThatThrownBy(() -> ConfigFiles.read(production)).isInstanceOf(ConfigurationValidationException.class)
                .hasMessageContaining("privacy.controller");
        // Every member counts: one left as a placeholder, or emptied, still refuses.
        String threeSet = production.replaceAll(
                "(QUIPU_PRIVACY_CONTROLLER_(NOMBRE|DOCUMENTO|EMAIL):-)PLACEHOLDER", "$1Set");
        assertThatThrownBy(() -> ConfigFiles.read(threeSet)).isInstanceOf(ConfigurationValidationException.class)
                .hasMessageContaining("privacy.controller");
        String oneEmpty = withController(production).replaceAll("QUIPU_PRIVACY_CONTROLLER_EMAIL:-[^}]*",
                "QUIPU_PRIVACY_CONTROLLER_EMAIL:-");
        assertThat(oneEmpty).contains("\"${QUIPU_PRIVACY_CONTROLLER_EMAIL:-}\"");
        assertThatThrownBy(() -> ConfigFiles.read(oneEmpty)).isInstanceOf(ConfigurationValidationException.class)
                .hasMessageContaining("privacy.controller");
    }

    @Test
    void production_starts_once_the_controller_is_set_and_the_export_shows_it_as_configured() throws Exception {
        QuipuConfiguration config = ConfigFiles.read(withController(production()));
        assertThat(config.isProduction()).isTrue();
        assertThat(config.getPrivacy().isControllerSet()).isTrue();
        PrivacySettings.ControllerView controller = config.getPrivacy().compliance().controller();
        assertThat(controller.nombre()).isEqualTo("Set: razón social of the controller");
        assertThat(controller.email()).isEqualTo("Set: privacy contact email");
    }

    @Test
    void development_starts_with_the_placeholders() throws Exception {
        assertThat(ConfigFiles.read(Files.readString(CONFIG)).getPrivacy().compliance().registryNumber())
                .startsWith("PLACEHOLDER");
    }

    private static String production() throws IOException {
        String production = Files.readString(CONFIG).replace("environment: ${QUIPU_ENV:-development}",
                "environment: production");
        assertThat(production).isNotEqualTo(Files.readString(CONFIG));
        for (String member : CONTROLLER) {
            assertThat(production).contains("${QUIPU_PRIVACY_CONTROLLER_" + member + ":-PLACEHOLDER");
        }
        return production;
    }

    /** As an operator sets it: each QUIPU_PRIVACY_CONTROLLER_* given (here, the defaults replaced). */
    private static String withController(String yaml) {
        return yaml.replaceAll("(QUIPU_PRIVACY_CONTROLLER_\\w+:-)PLACEHOLDER", "$1Set");
    }

    private static void collect(JsonNode node, List<String> values) {
        if (node.isTextual()) {
            values.add(node.asText());
        } else {
            node.forEach(child -> collect(child, values));
        }
    }

    private static List<String> names(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
