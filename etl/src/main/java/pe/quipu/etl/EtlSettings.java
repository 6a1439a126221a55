package pe.quipu.etl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import org.apache.commons.text.StringSubstitutor;
import org.apache.commons.text.lookup.StringLookupFactory;
import pe.quipu.core.db.DatabaseSettings;
import pe.quipu.core.fx.BcrpSettings;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the ETL reads from config.yml, the API's own file: the database, BCRP, and the {@code etl:} section.
 * {@code ${NAME:-default}} takes the environment variable, as in the API.
 */
public record EtlSettings(DatabaseSettings database, BcrpSettings bcrp, double maxRejectedShare,
                          double minRetainedShare) {

    private static final Pattern DURATION = Pattern.compile("(\\d+)\\s*(ms|s|m|h|d)");

    public static EtlSettings read(Path configFile) throws IOException {
        String raw = Files.readString(configFile, StandardCharsets.UTF_8);
        StringSubstitutor substitutor = new StringSubstitutor(StringLookupFactory.INSTANCE.environmentVariableStringLookup());
        JsonNode root = new ObjectMapper(new YAMLFactory()).readTree(substitutor.replace(raw));
        JsonNode db = root.path("database");
        DatabaseSettings database = new DatabaseSettings(text(db, "url", ""), text(db, "user", ""),
                text(db, "password", ""), Path.of(text(db, "embeddedDataDirectory", "./data/postgres")),
                db.path("embeddedPort").asInt(0));
        JsonNode b = root.path("bcrp");
        BcrpSettings bcrp = new BcrpSettings(
                text(b, "baseUrl", "https://estadisticas.bcrp.gob.pe/estadisticas/series/api"),
                duration(text(b, "attemptTimeout", "1400ms")), b.path("maxAttempts").asInt(3),
                duration(text(b, "retryWait", "200ms")));
        double maxRejectedShare = root.path("etl").path("maxRejectedShare").asDouble(0.001);
        double minRetainedShare = root.path("etl").path("minRetainedShare").asDouble(0.9);
        return new EtlSettings(database, bcrp, maxRejectedShare, minRetainedShare);
    }

    private static String text(JsonNode node, String field, String fallback) {
        JsonNode value = node.get(field);
        return value == null || value.isNull() ? fallback : value.asText();
    }

    /** Dropwizard's duration syntax as config.yml uses it: 1400ms, 30s, 30m, 2h, 3d. */
    static Duration duration(String text) {
        Matcher m = DURATION.matcher(text.strip());
        if (!m.matches()) {
            throw new IllegalArgumentException("not a duration: " + text);
        }
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
            case "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            case "h" -> Duration.ofHours(n);
            default -> Duration.ofDays(n);
        };
    }
}
