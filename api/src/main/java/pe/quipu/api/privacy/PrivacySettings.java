package pe.quipu.api.privacy;

import com.fasterxml.jackson.annotation.JsonProperty;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;

import java.util.ArrayList;
import java.util.List;

/**
 * The {@code privacy:} section of config.yml (contract §8): what Ley 29733 asks an export to say about who keeps the
 * data and where it goes, copied as it is into the export's {@code compliance}. config.yml ships values marked
 * {@link #PLACEHOLDER}; a production start refuses a {@code controller} that is unset or still a placeholder.
 */
public final class PrivacySettings {

    /** How config.yml marks a value the operator must replace. */
    public static final String PLACEHOLDER = "PLACEHOLDER";

    /** The RNPDP registration of the database (Registro Nacional de Protección de Datos Personales). */
    @NotNull
    @JsonProperty
    private String registryNumber = "";

    /** The reference of the registration certificate. */
    @NotNull
    @JsonProperty
    private String certificate = "";

    /** The data controller (titular del banco de datos). */
    @Valid
    @NotNull
    @JsonProperty
    private Controller controller = new Controller();

    /** International transfers (flujo transfronterizo): to whom, in which country, what for. */
    @NotNull
    @JsonProperty
    private List<@Valid @NotNull Transfer> transfers = List.of();

    /** How to exercise the ARCO rights (access, rectification, cancellation, opposition). */
    @NotNull
    @JsonProperty
    private String rights = "";

    public static final class Controller {
        @NotNull
        @JsonProperty
        private String nombre = "";

        @NotNull
        @JsonProperty
        private String documento = "";

        @NotNull
        @JsonProperty
        private String email = "";

        @NotNull
        @JsonProperty
        private String domicilio = "";

        /** The members still empty or placeholders, by name. */
        List<String> unset() {
            List<String> unset = new ArrayList<>();
            if (!isSet(nombre)) {
                unset.add("nombre");
            }
            if (!isSet(documento)) {
                unset.add("documento");
            }
            if (!isSet(email)) {
                unset.add("email");
            }
            if (!isSet(domicilio)) {
                unset.add("domicilio");
            }
            return unset;
        }
    }

    /** One international transfer, with contract §8's names. */
    public record Transfer(@NotNull @JsonProperty("pais") String pais, @NotNull @JsonProperty("entidad") String entidad,
                           @NotNull @JsonProperty("finalidad") String finalidad) {
    }

    /** What the export's {@code compliance} member shows: the section as configured, names as in contract §8. */
    public record Compliance(String registryNumber, String certificate, ControllerView controller,
                             List<Transfer> transfers, String rights) {
    }

    public record ControllerView(String nombre, String documento, String email, String domicilio) {
    }

    public Compliance compliance() {
        return new Compliance(registryNumber, certificate,
                new ControllerView(controller.nombre, controller.documento, controller.email, controller.domicilio),
                List.copyOf(transfers), rights);
    }

    /** Whether every member of {@code controller} has a value that is not a placeholder. */
    public boolean isControllerSet() {
        return controller.unset().isEmpty();
    }

    /** What these settings let through in development that production refuses, for the start's warning. */
    public List<String> developmentRelaxations() {
        return isControllerSet() ? List.of() : List.of("the personal-data export names no real data controller"
                + " (privacy.controller " + String.join(", ", unsetControllerMembers())
                + " empty or PLACEHOLDER: QUIPU_PRIVACY_CONTROLLER_*)");
    }

    /** The members of {@code controller} that are empty or still placeholders. */
    public List<String> unsetControllerMembers() {
        return controller.unset();
    }

    private static boolean isSet(String value) {
        return value != null && !value.isBlank() && !value.strip().startsWith(PLACEHOLDER);
    }
}
