package pe.quipu.api.docs;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.testing.QuipuExtension;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static pe.quipu.api.testing.ProblemAssert.assertProblem;

/**
 * {@code /docs}: Swagger UI from Quipu's own origin, every file with its content type, and strict headers on all of
 * them: a CSP that allows no inline script and nothing from another origin, no framing, no referrer, no sniffing.
 */
class DocsTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    private static final Pattern SCRIPT = Pattern.compile("<script([^>]*)>(.*?)</script>", Pattern.DOTALL);
    private static final Pattern REFERENCE = Pattern.compile("(?:src|href)=\"([^\"]*)\"");
    private static final Pattern CSS_URL = Pattern.compile("url\\(\\s*['\"]?([^'\")]*)");

    private static void assertStrictHeaders(HttpResponse<String> response) {
        String csp = response.headers().firstValue("Content-Security-Policy").orElseThrow();
        assertThat(csp.split(";\\s*")).contains("default-src 'self'", "script-src 'self'", "style-src 'self'",
                "img-src 'self' data:", "connect-src 'self'", "object-src 'none'", "base-uri 'none'",
                "frame-ancestors 'none'");
        assertThat(csp).doesNotContain("unsafe-inline", "unsafe-eval", "http:", "https:");
        assertThat(response.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
        assertThat(response.headers().firstValue("Referrer-Policy")).hasValue("no-referrer");
        assertThat(response.headers().firstValue("X-Frame-Options")).hasValue("DENY");
    }

    private static List<String> references(String html) {
        List<String> references = new ArrayList<>();
        Matcher matcher = REFERENCE.matcher(html);
        while (matcher.find()) {
            references.add(matcher.group(1));
        }
        return references;
    }

    @Test
    void the_page_loads_swagger_ui_from_this_origin_with_no_inline_script() {
        HttpResponse<String> page = quipu.get("/docs", null);

        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.headers().firstValue("Content-Type")).get().asString().matches("(?i)text/html; ?charset=utf-8");
        assertStrictHeaders(page);
        Matcher scripts = SCRIPT.matcher(page.body());
        int count = 0;
        while (scripts.find()) {
            count++;
            assertThat(scripts.group(1)).as("a script's attributes").contains("src=\"/docs/");
            assertThat(scripts.group(2)).as("a script's inline code").isBlank();
        }
        assertThat(count).isEqualTo(2);
        assertThat(page.body()).doesNotContain("<style", "style=");
        assertThat(references(page.body())).isNotEmpty().allSatisfy(url -> assertThat(url).startsWith("/docs/"));
        assertThat(quipu.get("/docs/", null).body()).isEqualTo(page.body());
    }

    @Test
    void every_file_the_page_names_is_served_with_its_type_and_the_same_headers() {
        String page = quipu.get("/docs", null).body();

        for (String url : references(page)) {
            HttpResponse<String> file = quipu.get(url, null);
            assertThat(file.statusCode()).as(url).isEqualTo(200);
            assertThat(file.body()).as(url).isNotEmpty();
            String type = file.headers().firstValue("Content-Type").orElseThrow();
            if (url.endsWith(".js")) {
                assertThat(type).as(url).matches("(?i)text/javascript; ?charset=utf-8");
            } else if (url.endsWith(".css")) {
                assertThat(type).as(url).matches("(?i)text/css; ?charset=utf-8");
            } else {
                assertThat(type).as(url).isEqualTo("image/png");
            }
            assertStrictHeaders(file);
        }
        assertThat(references(page)).contains("/docs/swagger-ui-bundle.js", "/docs/swagger-initializer.js",
                "/docs/swagger-ui.css");
    }

    @Test
    void the_initializer_reads_quipus_own_document_and_loads_nothing_from_elsewhere() {
        String initializer = quipu.get("/docs/swagger-initializer.js", null).body();

        assertThat(initializer).contains("url: \"/v1/openapi.json\"", "validatorUrl: null",
                "queryConfigEnabled: false", "persistAuthorization: false");
        assertThat(initializer).doesNotContain("http://", "https://", "SwaggerUIStandalonePreset");
        // Swagger UI's stylesheet refers to images as data URIs only: no font or image from another origin.
        Matcher urls = CSS_URL.matcher(quipu.get("/docs/swagger-ui.css", null).body());
        while (urls.find()) {
            assertThat(urls.group(1)).startsWith("data:");
        }
    }

    @Test
    void an_unchanged_file_is_304_and_anything_else_under_docs_is_refused() {
        HttpResponse<String> bundle = quipu.get("/docs/swagger-ui-bundle.js", null);
        String etag = bundle.headers().firstValue("ETag").orElseThrow();
        assertThat(bundle.headers().firstValue("Cache-Control")).hasValue("no-cache");

        HttpResponse<String> again = quipu.get("/docs/swagger-ui-bundle.js", null, "If-None-Match", etag);

        assertThat(again.statusCode()).isEqualTo(304);
        assertThat(again.body()).isEmpty();
        assertProblem(quipu.get("/docs/index.js", null), 404, "not_found");
        assertProblem(quipu.get("/docs/oauth2-redirect.html", null), 404, "not_found");
        assertProblem(quipu.post("/docs", null, "application/json", "{}"), 405, "method_not_allowed");
    }

    @Test
    void try_it_out_requests_from_the_page_are_answered_as_any_with_a_key_as_bearer() {
        String key = quipu.accounts.newKey(Scope.UBIGEOS_READ);
        String origin = quipu.uri("").toString();

        HttpResponse<String> tried = quipu.send(HttpRequest.newBuilder(quipu.uri("/v1/ubigeos/150101")).GET(), key,
                "Origin", origin, "Referer", origin + "/docs");

        assertThat(tried.statusCode()).isEqualTo(200);
        // Same origin: the browser needs no CORS headers, and Quipu sends none.
        assertThat(tried.headers().firstValue("Access-Control-Allow-Origin")).isEmpty();
    }
}
