package pe.quipu.api.operations;

import com.fasterxml.jackson.annotation.JsonProperty;
import jakarta.validation.constraints.NotNull;

import java.util.List;

/** config.yml's {@code admin:}: the bearer token that every operator task needs (contract §13). */
public final class AdminSettings {

    /** QUIPU_ADMIN_TOKEN_FILE: a file holding the token. Required in production. Unset: null or empty. */
    @JsonProperty
    private String tokenFile = "";

    /** Development only, when {@link #tokenFile} is unset: generated on first start (mode 0600) and kept here. */
    @NotNull
    @JsonProperty
    private String developmentTokenFile = "./data/admin-token";

    public String getTokenFile() {
        return tokenFile == null ? "" : tokenFile;
    }

    public String getDevelopmentTokenFile() {
        return developmentTokenFile;
    }

    /** The file the token is read from in this environment (generated there first in development). */
    public String effectiveTokenFile() {
        return getTokenFile().isBlank() ? developmentTokenFile : tokenFile;
    }

    /** What these settings let through in development that production refuses, for the start's warning. */
    public List<String> developmentRelaxations() {
        return getTokenFile().isBlank()
                ? List.of("the operator tasks' admin token generated into " + developmentTokenFile
                        + " (QUIPU_ADMIN_TOKEN_FILE unset)")
                : List.of();
    }
}
