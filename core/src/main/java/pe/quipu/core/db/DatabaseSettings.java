package pe.quipu.core.db;

import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Where Quipu's PostgreSQL is. With a {@code url} it is an external server; without one Quipu runs
 * the embedded server over {@code embeddedDataDirectory} (kept across restarts).
 *
 * @param embeddedPort           port for an embedded server this process starts; 0 picks a free one.
 *                               Processes that attach to a running server read its port from {@code postmaster.pid}.
 * @param embeddedServerSettings extra PostgreSQL settings ({@code -c name=value}) for an embedded server this process
 *                               starts, e.g. {@code shared_preload_libraries=pg_stat_statements} for a benchmark; a
 *                               server already running keeps its own
 */
public record DatabaseSettings(String url, String user, String password, Path embeddedDataDirectory, int embeddedPort,
                               Map<String, String> embeddedServerSettings) {

    private static final Pattern NAME = Pattern.compile("[a-z_][a-z0-9_.]*");
    // pg_ctl hands its option string to a shell: plain characters only.
    private static final Pattern VALUE = Pattern.compile("[A-Za-z0-9_.,:/+-]+");

    public DatabaseSettings {
        embeddedServerSettings = Map.copyOf(embeddedServerSettings);
        embeddedServerSettings.forEach((name, value) -> {
            if (!NAME.matcher(name).matches() || !VALUE.matcher(value).matches()) {
                throw new IllegalArgumentException("not a PostgreSQL setting Quipu passes on: " + name + "=" + value);
            }
        });
    }

    public DatabaseSettings(String url, String user, String password, Path embeddedDataDirectory, int embeddedPort) {
        this(url, user, password, embeddedDataDirectory, embeddedPort, Map.of());
    }

    /**
     * Reads {@code name=value name=value …} (blank: none), as {@code database.embeddedServerSettings} is written in
     * config.yml ({@code QUIPU_EMBEDDED_DB_SETTINGS}).
     */
    public static Map<String, String> parseServerSettings(String text) {
        Map<String, String> settings = new java.util.LinkedHashMap<>();
        if (text == null || text.isBlank()) {
            return settings;
        }
        for (String pair : text.strip().split("\\s+")) {
            int eq = pair.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("expected name=value, got '" + pair + "'");
            }
            settings.put(pair.substring(0, eq), pair.substring(eq + 1));
        }
        return settings;
    }

    public boolean external() {
        return url != null && !url.isBlank();
    }
}
