package pe.quipu.api.operations;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.testing.ChildQuipu;
import pe.quipu.api.testing.QuipuCommandLine;
import pe.quipu.api.testing.QuipuExtension;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static pe.quipu.api.testing.ProblemAssert.assertProblem;

/**
 * Operator tasks behind the admin token (contract §13): Quipu's and Dropwizard's, refused to browsers, reachable
 * with {@code ./quipu task}; production refuses to start without a token.
 */
class AdminTasksTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    @Test
    void a_task_without_the_token_or_with_another_is_401_and_changes_nothing() {
        String email = account();
        for (String authorization : new String[] {null, "Bearer " + "x".repeat(43), "Basic " + quipu.adminToken(),
                "Bearer", quipu.adminToken()}) {
            HttpResponse<String> response = setPlan(email, authorization);
            assertProblem(response, 401, "unauthorized");
            assertThat(response.headers().firstValue("WWW-Authenticate")).hasValue("Bearer realm=\"quipu-admin\"");
        }
        assertThat(plan(email)).isEqualTo("free");
    }

    @Test
    void a_task_from_a_browser_is_403_even_with_the_token() {
        String email = account();
        String bearer = "Bearer " + quipu.adminToken();
        assertProblem(setPlan(email, bearer, "Origin", "http://evil.example"), 403, "forbidden");
        assertProblem(setPlan(email, bearer, "Origin", "null"), 403, "forbidden");
        assertProblem(setPlan(email, bearer, "Sec-Fetch-Site", "cross-site"), 403, "forbidden");
        assertProblem(setPlan(email, null, "Sec-Fetch-Site", "same-origin"), 403, "forbidden");
        // A CORS preflight is refused too.
        HttpResponse<String> preflight = quipu.send(HttpRequest.newBuilder(quipu.adminUri("/tasks/set-plan"))
                .method("OPTIONS", HttpRequest.BodyPublishers.noBody()), null, "Origin", "http://evil.example",
                "Access-Control-Request-Method", "POST");
        assertThat(preflight.statusCode()).isEqualTo(403);
        assertThat(plan(email)).isEqualTo("free");
    }

    @Test
    void a_task_with_the_token_runs() {
        String email = account();
        HttpResponse<String> response = setPlan(email, "Bearer " + quipu.adminToken());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        assertThat(plan(email)).isEqualTo("pro");
    }

    @Test
    void dropwizards_own_tasks_need_the_token_too() {
        for (String task : List.of("/tasks/log-level?logger=pe.quipu&level=INFO", "/tasks/gc", "/tasks")) {
            boolean post = !task.equals("/tasks");
            HttpRequest.Builder request = HttpRequest.newBuilder(quipu.adminUri(task));
            if (post) {
                request.POST(HttpRequest.BodyPublishers.noBody());
            }
            assertThat(quipu.send(request, null).statusCode()).as(task).isEqualTo(401);
            assertThat(quipu.send(HttpRequest.newBuilder(quipu.adminUri(task)).method(post ? "POST" : "GET",
                    HttpRequest.BodyPublishers.noBody()), quipu.adminToken(), "Origin", "http://x.example")
                    .statusCode()).as(task).isEqualTo(403);
        }
        HttpResponse<String> logLevel = quipu.send(HttpRequest.newBuilder(
                quipu.adminUri("/tasks/log-level?logger=pe.quipu.api.operations&level=INFO"))
                .POST(HttpRequest.BodyPublishers.noBody()), quipu.adminToken());
        assertThat(logLevel.statusCode()).as(logLevel.body()).isEqualTo(200);
    }

    @Test
    void health_and_metrics_stay_readable_without_the_token() {
        assertThat(quipu.send(HttpRequest.newBuilder(quipu.adminUri("/healthcheck")), null).statusCode())
                .isIn(200, 500);
        assertThat(quipu.send(HttpRequest.newBuilder(quipu.adminUri("/ping")), null).statusCode()).isEqualTo(200);
    }

    @Test
    void quipu_task_runs_a_task_with_the_token_of_the_configuration() {
        String email = account();
        URI admin = quipu.adminUri("/");
        Map<String, String> settings = Map.of(
                "server.adminConnectors[0].port", Integer.toString(admin.getPort()),
                "adminTasks.developmentTokenFile", quipu.configuration().getAdminTasks().effectiveTokenFile());
        QuipuCommandLine.Result result = QuipuCommandLine.run(quipu, settings, "task", "set-plan", "email=" + email,
                "plan=starter", "rateLimitRpm=400");
        assertThat(result.error()).as(result.stderr()).isEmpty();
        assertThat(result.stdout()).contains("\"plan\":\"starter\"");
        assertThat(plan(email)).isEqualTo("starter");

        QuipuCommandLine.Result refused = QuipuCommandLine.run(quipu, settings, "task", "set-plan",
                "email=" + email, "plan=platinum");
        assertThat(refused.error()).isPresent();
        assertThat(refused.stderr()).contains("quipu task:", "400", "validation_error");

        QuipuCommandLine.Result wrongToken = QuipuCommandLine.run(quipu, Map.of(
                "server.adminConnectors[0].port", Integer.toString(admin.getPort()),
                "adminTasks.tokenFile", writeToken("y".repeat(40)).toString()), "task", "gc");
        assertThat(wrongToken.error()).isPresent();
        assertThat(wrongToken.stderr()).contains("401");
    }

    @Test
    void development_generates_the_token_owner_readable_and_keeps_it() throws Exception {
        Path file = Files.createTempDirectory("quipu-admin").resolve("data").resolve("admin-token");
        AdminSettings settings = settings("", file.toString());
        String token = AdminToken.load(settings, false);
        assertThat(token).hasSizeGreaterThanOrEqualTo(AdminToken.MINIMUM_LENGTH);
        assertThat(Files.getPosixFilePermissions(file))
                .isEqualTo(Set.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE));
        assertThat(AdminToken.load(settings, false)).isEqualTo(token);
        assertThat(settings.developmentRelaxations()).singleElement().asString().contains("QUIPU_ADMIN_TOKEN_FILE");
    }

    @Test
    void production_needs_a_token_file_of_at_least_32_characters() throws Exception {
        assertThatThrownBy(() -> AdminToken.load(settings("", "/tmp/never"), true))
                .hasMessageContaining("QUIPU_ADMIN_TOKEN_FILE is required in production");
        Path weak = writeToken("short");
        assertThatThrownBy(() -> AdminToken.load(settings(weak.toString(), ""), true))
                .hasMessageContaining("at least 32").hasMessageNotContaining("short");
        Path good = writeToken("z".repeat(64) + "\n");
        assertThat(AdminToken.load(settings(good.toString(), ""), true)).isEqualTo("z".repeat(64));
        assertThat(settings(good.toString(), "").developmentRelaxations()).isEmpty();
    }

    @Test
    void a_production_server_refuses_to_start_without_the_token() throws Exception {
        Path log = Files.createTempFile("quipu-production-", ".log");
        Path signingKey = quipu.database.folder().resolve("jwt-signing-key.json");
        ProcessBuilder builder = ChildQuipu.command(quipu.database, log, List.of(), "server");
        Map<String, String> env = builder.environment();
        env.put("QUIPU_ENV", "production");
        env.put("JWT_SIGNING_KEY", signingKey.toString());
        for (String member : List.of("NOMBRE", "DOCUMENTO", "EMAIL", "DOMICILIO")) {
            env.put("QUIPU_PRIVACY_CONTROLLER_" + member, "Set");
        }
        env.put("QUIPU_PORT", "0");
        env.put("QUIPU_ADMIN_PORT", "0");
        Process process = builder.start();
        try {
            assertThat(process.waitFor(90, TimeUnit.SECONDS)).as(Files.readString(log)).isTrue();
            assertThat(process.exitValue()).isNotZero();
            assertThat(Files.readString(log)).contains("QUIPU_ADMIN_TOKEN_FILE is required in production");
        } finally {
            process.destroyForcibly();
            Files.deleteIfExists(log);
        }
    }

    private static AdminSettings settings(String tokenFile, String developmentFile) {
        return quipu.json.convertValue(Map.of("tokenFile", tokenFile, "developmentTokenFile", developmentFile),
                AdminSettings.class);
    }

    private static Path writeToken(String token) {
        try {
            Path file = Files.createTempFile("quipu-admin-token", "");
            Files.writeString(file, token);
            return file;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static String account() {
        String email = "ops-" + UUID.randomUUID() + "@quipu.test";
        pe.quipu.api.keys.KeyIssuer issuer = new pe.quipu.api.keys.KeyIssuer(quipu.clock,
                new pe.quipu.core.events.EventOutbox(quipu.clock, quipu.json));
        quipu.database.jdbi().useTransaction(h -> issuer.accountFor(h, email));
        return email;
    }

    private static String plan(String email) {
        return quipu.database.jdbi().withHandle(h -> h.createQuery("""
                        SELECT s.plan FROM subscriptions s JOIN accounts a ON a.id = s.account_id
                        WHERE a.email = :email AND s.ended_at IS NULL ORDER BY s.started_at DESC LIMIT 1""")
                .bind("email", email).mapTo(String.class).one());
    }

    private static HttpResponse<String> setPlan(String email, String authorization, String... headers) {
        HttpRequest.Builder request = HttpRequest.newBuilder(quipu.adminUri("/tasks/set-plan"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("email=" + email.replace("@", "%40") + "&plan=pro"));
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        return quipu.send(request, null, headers);
    }
}
