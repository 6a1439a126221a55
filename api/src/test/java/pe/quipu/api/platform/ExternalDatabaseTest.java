package pe.quipu.api.platform;

import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.DropwizardTestSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import pe.quipu.api.QuipuApplication;
import pe.quipu.api.QuipuConfiguration;
import pe.quipu.core.db.EmbeddedPostgresServer;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;

/** With database.url (DATABASE_URL) Quipu uses that server, migrates it and seeds it; no embedded server starts. */
class ExternalDatabaseTest {

    @TempDir
    Path temp;

    @Test
    void runs_against_a_postgresql_named_by_url() throws Exception {
        Path unusedEmbedded = temp.resolve("must-stay-empty");
        try (EmbeddedPostgresServer other = EmbeddedPostgresServer.acquire(temp.resolve("other-server"), 0, "external")) {
            // A custom property prefix keeps these overrides apart from the other test apps'.
            DropwizardTestSupport<QuipuConfiguration> app = new DropwizardTestSupport<>(QuipuApplication.class,
                    Path.of("..", "config.yml").toString(), "quipu-external",
                    ConfigOverride.config("quipu-external", "database.url", other.jdbcUrl()),
                    ConfigOverride.config("quipu-external", "database.user", EmbeddedPostgresServer.USER),
                    ConfigOverride.config("quipu-external", "database.password", other.password()),
                    ConfigOverride.config("quipu-external", "database.embeddedDataDirectory", unusedEmbedded.toString()),
                    // Not ./data/ of the working directory (api/ under Maven), which the test would leave behind.
                    ConfigOverride.config("quipu-external", "auth.developmentSigningKeyFile",
                            temp.resolve("jwt-signing-key.json").toString()),
                    ConfigOverride.config("quipu-external", "server.applicationConnectors[0].port", "0"),
                    ConfigOverride.config("quipu-external", "server.adminConnectors[0].port", "0"),
                    ConfigOverride.config("quipu-external", "bcrp.captureEnabled", "false"),
                    ConfigOverride.config("quipu-external", "sunatFx.captureEnabled", "false"),
                    // WarmUpTest covers the warm-up; here it would only hold the port closed for half a minute.
                    ConfigOverride.config("quipu-external", "warmUp", "0s"),
                    ConfigOverride.config("quipu-external", "logging.level", "WARN"));
            app.before();
            try {
                HttpResponse<String> status = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + app.getLocalPort() + "/v1/status")).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(status.statusCode()).isEqualTo(200);
                try (Connection c = DriverManager.getConnection(other.jdbcUrl(), EmbeddedPostgresServer.USER,
                        other.password());
                     Statement s = c.createStatement();
                     ResultSet rs = s.executeQuery("select count(*) from databasechangelog")) {
                    rs.next();
                    assertThat(rs.getInt(1)).isPositive();
                }
            } finally {
                app.after();
            }
            assertThat(Files.exists(unusedEmbedded)).isFalse();
        }
    }
}
