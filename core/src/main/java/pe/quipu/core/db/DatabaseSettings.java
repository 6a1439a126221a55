package pe.quipu.core.db;

import com.fasterxml.jackson.annotation.JsonProperty;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The {@code database:} section of config.yml, read by the API and the ETL alike. With a {@code url} Quipu uses that
 * external server; without one it runs the embedded server over {@code embeddedDataDirectory}, kept across restarts.
 */
public final class DatabaseSettings {

    private static final java.util.regex.Pattern NAME = java.util.regex.Pattern.compile("[a-z_][a-z0-9_.]*");
    // pg_ctl hands its option string to a shell: plain characters only.
    private static final java.util.regex.Pattern VALUE = java.util.regex.Pattern.compile("[A-Za-z0-9_.,:/+-]+");

    @JsonProperty
    private String url = "";
    @JsonProperty
    private String user = "";
    @JsonProperty
    private String password = "";
    @NotNull
    @JsonProperty
    private String embeddedDataDirectory = "./data/postgres";
    /** For an embedded server this process starts; 0 picks a free one. Others read it from {@code postmaster.pid}. */
    @Min(0)
    @Max(65535)
    @JsonProperty
    private int embeddedPort;
    /** The API's connection pool. */
    @Min(2)
    @JsonProperty
    private int maxConnections = 32;
    /**
     * {@code name=value …}: extra PostgreSQL settings for an embedded server this process starts (a running one
     * keeps its own), e.g. {@code shared_preload_libraries=pg_stat_statements} for bench/metering.sh.
     */
    @Pattern(regexp = "\\s*([a-z_][a-z0-9_.]*=[A-Za-z0-9_.,:/+-]+\\s*)*",
            message = "must be space-separated name=value PostgreSQL settings (QUIPU_EMBEDDED_DB_SETTINGS)")
    @JsonProperty
    private String embeddedServerSettings = "";

    public DatabaseSettings() {
    }

    /** The embedded server over {@code dataDirectory} (tools and tests). */
    public static DatabaseSettings embedded(Path dataDirectory) {
        DatabaseSettings settings = new DatabaseSettings();
        settings.embeddedDataDirectory = dataDirectory.toString();
        return settings;
    }

    /** Unset values (an empty {@code ${VAR:-}} reads as YAML null) are empty strings. */
    public String url() {
        return Objects.requireNonNullElse(url, "");
    }

    public String user() {
        return Objects.requireNonNullElse(user, "");
    }

    /** Never logged. */
    public String password() {
        return Objects.requireNonNullElse(password, "");
    }

    public Path embeddedDataDirectory() {
        return Path.of(embeddedDataDirectory);
    }

    public int embeddedPort() {
        return embeddedPort;
    }

    public int maxConnections() {
        return maxConnections;
    }

    /** {@link #embeddedServerSettings} by name, each checked as {@link #parseServerSettings} does. */
    public Map<String, String> embeddedServerSettings() {
        return parseServerSettings(embeddedServerSettings);
    }

    public boolean external() {
        return !url().isBlank();
    }

    /**
     * Reads {@code name=value name=value …} (blank: none), as {@code database.embeddedServerSettings} is written;
     * refuses a name or value that is not plain, since pg_ctl passes them through a shell.
     */
    public static Map<String, String> parseServerSettings(String text) {
        Map<String, String> settings = new LinkedHashMap<>();
        if (text == null || text.isBlank()) {
            return settings;
        }
        for (String pair : text.strip().split("\\s+")) {
            int eq = pair.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("expected name=value, got '" + pair + "'");
            }
            String name = pair.substring(0, eq);
            String value = pair.substring(eq + 1);
            if (!NAME.matcher(name).matches() || !VALUE.matcher(value).matches()) {
                throw new IllegalArgumentException("not a PostgreSQL setting Quipu passes on: " + name + "=" + value);
            }
            settings.put(name, value);
        }
        return settings;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof DatabaseSettings other && url().equals(other.url()) && user().equals(other.user())
                && password().equals(other.password()) && embeddedDataDirectory.equals(other.embeddedDataDirectory)
                && embeddedPort == other.embeddedPort && maxConnections == other.maxConnections
                && embeddedServerSettings().equals(other.embeddedServerSettings());
    }

    @Override
    public int hashCode() {
        return Objects.hash(url(), user(), embeddedDataDirectory, embeddedPort, maxConnections);
    }

    /** Without the password. */
    @Override
    public String toString() {
        return "DatabaseSettings[url=" + url() + ", user=" + user() + ", embeddedDataDirectory=" + embeddedDataDirectory
                + ", embeddedPort=" + embeddedPort + ", maxConnections=" + maxConnections
                + ", embeddedServerSettings=" + embeddedServerSettings + "]";
    }
}
