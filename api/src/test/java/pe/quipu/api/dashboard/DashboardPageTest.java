package pe.quipu.api.dashboard;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.api.testing.TestAccounts;

import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static pe.quipu.api.testing.ProblemAssert.assertProblem;

/**
 * {@code /app}, the dashboard, over HTTP: its files from Quipu's own origin with their types, strict headers on every
 * one (a CSP without inline script or style and nothing from another origin, no framing, no referrer, no sniffing),
 * no inline script or style in the page, no storage of a token in the scripts, and a refresh cookie that a request
 * without the page's CSRF header cannot spend. DashboardBrowserTest drives the same files in Chromium.
 */
class DashboardPageTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension().with("webhooks.workerEnabled", "false");

    private static final Pattern SCRIPT = Pattern.compile("<script([^>]*)>(.*?)</script>", Pattern.DOTALL);
    private static final Pattern REFERENCE = Pattern.compile("(?:src|href)=\"([^\"]*)\"");
    private static final Pattern IMPORT = Pattern.compile("(?m)^import .* from \"([^\"]+)\";");

    static void assertStrictHeaders(HttpResponse<String> response) {
        String csp = response.headers().firstValue("Content-Security-Policy").orElseThrow();
        assertThat(csp.split(";\\s*")).contains("default-src 'none'", "script-src 'self'", "style-src 'self'",
                "connect-src 'self'", "object-src 'none'", "base-uri 'none'", "form-action 'self'",
                "frame-ancestors 'none'");
        assertThat(csp).doesNotContain("unsafe-inline", "unsafe-eval", "unsafe-hashes", "http:", "https:", "*");
        assertThat(response.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
        assertThat(response.headers().firstValue("Referrer-Policy")).hasValue("no-referrer");
        assertThat(response.headers().firstValue("X-Frame-Options")).hasValue("DENY");
        assertThat(response.headers().firstValue("Cross-Origin-Opener-Policy")).hasValue("same-origin");
        assertThat(response.headers().firstValue("Access-Control-Allow-Origin")).isEmpty();
    }

    @Test
    void the_page_loads_its_module_from_this_origin_with_no_inline_script_or_style() {
        HttpResponse<String> page = quipu.get("/app", null);

        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.headers().firstValue("Content-Type")).get().asString().matches("(?i)text/html; ?charset=utf-8");
        assertStrictHeaders(page);
        Matcher scripts = SCRIPT.matcher(page.body());
        List<String> sources = new ArrayList<>();
        while (scripts.find()) {
            assertThat(scripts.group(1)).contains("type=\"module\"");
            assertThat(scripts.group(2)).as("a script's inline code").isBlank();
            sources.add(scripts.group(1));
        }
        assertThat(sources).singleElement().asString().contains("src=\"/app/js/main.js\"");
        assertThat(page.body()).doesNotContain("<style", "style=", "javascript:").doesNotContainPattern(" on[a-z]+=");
        assertThat(page.body()).contains("<html lang=\"es-PE\">");
        for (String url : references(page.body())) {
            assertThat(url).matches("/app/.*|#.*|/docs");
        }
        assertThat(quipu.get("/app/", null).body()).isEqualTo(page.body());
    }

    @Test
    void every_file_is_served_with_its_type_and_the_same_headers_and_every_import_resolves() {
        for (String name : Dashboard.FILES) {
            HttpResponse<String> file = quipu.get("/app/" + name, null);
            assertThat(file.statusCode()).as(name).isEqualTo(200);
            assertStrictHeaders(file);
            assertThat(file.headers().firstValue("Cache-Control")).hasValue("no-cache");
            String type = file.headers().firstValue("Content-Type").orElseThrow();
            if (name.endsWith(".js")) {
                assertThat(type).as(name).matches("(?i)text/javascript; ?charset=utf-8");
                Matcher imports = IMPORT.matcher(file.body());
                while (imports.find()) {
                    String target = java.net.URI.create("http://x/app/" + name).resolve(imports.group(1)).getPath();
                    assertThat(quipu.get(target, null).statusCode()).as(name + " imports " + target).isEqualTo(200);
                }
            } else if (name.endsWith(".css")) {
                assertThat(type).as(name).matches("(?i)text/css; ?charset=utf-8");
                assertThat(file.body()).doesNotContain("@import", "url(http");
            }
        }
        String etag = quipu.get("/app/js/main.js", null).headers().firstValue("ETag").orElseThrow();
        assertThat(quipu.get("/app/js/main.js", null, "If-None-Match", etag).statusCode()).isEqualTo(304);
        assertProblem(quipu.get("/app/js/missing.js", null), 404, "not_found");
        assertThat(quipu.get("/app/%2e%2e/config.yml", null).statusCode()).isIn(400, 404);
        assertProblem(quipu.post("/app", null, "application/json", "{}"), 405, "method_not_allowed");
    }

    @Test
    void the_scripts_keep_the_access_token_in_memory_and_build_the_page_without_parsing_markup() throws IOException {
        for (String name : Dashboard.FILES) {
            if (!name.endsWith(".js")) {
                continue;
            }
            // The SVG namespace is a name, not an address anything is loaded from.
            String script = resource(name).replace("\"http://www.w3.org/2000/svg\"", "");
            assertThat(script).as(name).doesNotContain("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write",
                    "eval(", "new Function", "sessionStorage", "document.cookie", "setAttribute(\"style\"", "http://",
                    "https://cdn");
            // localStorage holds one hint that a session may exist (no token), set and read in api.js only.
            if (!name.equals("js/api.js")) {
                assertThat(script).as(name).doesNotContain("localStorage");
            }
        }
        String api = resource("js/api.js");
        assertThat(api).contains("localStorage.setItem(SIGNED_IN_HINT, \"1\")")
                .doesNotContain("localStorage.setItem(SIGNED_IN_HINT, token", "setItem(\"token");
        assertThat(api).contains("\"X-Quipu-CSRF\": \"1\"");
    }

    @Test
    void a_cross_site_request_cannot_spend_the_refresh_cookie() {
        TestAccounts.Session session = quipu.accounts.newSession();
        String cookie = "quipu_refresh=" + session.refreshToken();

        // What a cross-site form can send (it cannot add a header): refused, and the token is not spent.
        assertRefused(quipu.post("/v1/auth/refresh", null, "text/plain", "{\"a\":\"=\"}", "Cookie", cookie,
                "Origin", "https://evil.example"));
        assertRefused(quipu.post("/v1/auth/refresh", null, "application/x-www-form-urlencoded", "refreshToken=x",
                "Cookie", cookie, "Origin", "https://evil.example"));
        assertProblem(quipu.request("POST", "/v1/auth/refresh", null, "Cookie", cookie, "Origin", "https://evil.example"),
                400, "validation_error");
        // A cross-origin script would need a CORS preflight to add the header: Quipu grants none.
        HttpResponse<String> preflight = quipu.request("OPTIONS", "/v1/auth/refresh", null,
                "Origin", "https://evil.example", "Access-Control-Request-Method", "POST",
                "Access-Control-Request-Headers", "x-quipu-csrf");
        assertThat(preflight.headers().firstValue("Access-Control-Allow-Origin")).isEmpty();
        assertThat(preflight.headers().firstValue("Access-Control-Allow-Headers")).isEmpty();
        assertThat(preflight.headers().firstValue("Access-Control-Allow-Credentials")).isEmpty();

        // The page's own request, with the header, still finds the token unspent.
        HttpResponse<String> own = quipu.request("POST", "/v1/auth/refresh", null, "Cookie", cookie, "X-Quipu-CSRF", "1");
        assertThat(own.statusCode()).as(own.body()).isEqualTo(200);
    }

    /** Refused as a bad request (no CSRF header) or for its form's content type, with Problem Details. */
    private static void assertRefused(HttpResponse<String> response) {
        assertThat(response.statusCode()).as(response.body()).isIn(400, 415);
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(response.headers().allValues("Set-Cookie")).isEmpty();
    }

    private static List<String> references(String html) {
        List<String> references = new ArrayList<>();
        Matcher matcher = REFERENCE.matcher(html);
        while (matcher.find()) {
            references.add(matcher.group(1));
        }
        return references;
    }

    private static String resource(String name) throws IOException {
        try (InputStream in = Dashboard.class.getResourceAsStream(name)) {
            assertThat(in).as(name).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
