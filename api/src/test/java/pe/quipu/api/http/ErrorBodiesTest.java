package pe.quipu.api.http;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.api.testing.RawResponse;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every error, for every method, is a Problem Details document: also those Jetty answers itself (an ambiguous path,
 * a method the server does not allow), which it used to send with an empty body for anything but GET and POST.
 */
class ErrorBodiesTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    private static final List<String> METHODS = List.of("GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE",
            "PROPFIND", "BREW");
    private static final List<String> PATHS = List.of("/v1/nothing-here", "/nothing-here", "/v1/status",
            "/v1/ruc/batch", "/v1/a%2Fb", "/v1/%2e%2e/status", "//v1/status", "/v1/ruc/%2F", "/v1/%00",
            "/v1/ubigeos/150101");

    @Test
    void every_error_for_every_method_is_problem_details() {
        List<String> faults = new ArrayList<>();
        int errors = 0;
        for (String method : METHODS) {
            for (String path : PATHS) {
                for (boolean withBody : new boolean[]{false, true}) {
                    String request = method + " " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
                            + (withBody ? "Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}" : "\r\n");
                    RawResponse response = RawResponse.parse(quipu.raw(request));
                    if (response.status() < 400) {
                        continue;
                    }
                    errors++;
                    String fault = fault(response);
                    if (fault != null) {
                        faults.add(method + " " + path + (withBody ? " (with a body)" : "") + " → "
                                + response.status() + ": " + fault);
                    }
                }
            }
        }
        assertThat(errors).isGreaterThan(100);
        assertThat(faults).isEmpty();
    }

    @Test
    void a_put_on_an_ambiguous_path_is_a_400_validation_error_document() {
        RawResponse response = RawResponse.parse(quipu.raw(
                "PUT /v1/a%2Fb HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"));
        assertThat(response.status()).isEqualTo(400);
        assertThat(response.header("Content-Type")).hasValue("application/problem+json");
        assertThat(response.body()).contains("\"type\":\"validation_error\"");
    }

    @Test
    void a_method_the_server_does_not_allow_is_a_405_document() {
        RawResponse response = RawResponse.parse(quipu.raw(
                "TRACE /v1/status HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"));
        assertThat(response.status()).isEqualTo(405);
        assertThat(response.header("Content-Type")).hasValue("application/problem+json");
        assertThat(response.body()).contains("\"type\":\"method_not_allowed\"");
    }

    /** What is wrong with an error answer, or null when it is a proper Problem Details document. */
    private static String fault(RawResponse response) {
        if (!response.header("Content-Type").orElse("").equals("application/problem+json")) {
            return "Content-Type " + response.header("Content-Type").orElse("(none)");
        }
        JsonNode body;
        try {
            body = quipu.json.readTree(response.body());
        } catch (Exception e) {
            return "body is not JSON: '" + response.body() + "'";
        }
        if (body == null || body.path("status").asInt() != response.status() || body.path("type").asText().isEmpty()
                || body.path("title").asText().isEmpty() || body.path("detail").asText().isEmpty()) {
            return "body is not a Problem Details document for this status: " + response.body();
        }
        return null;
    }
}
