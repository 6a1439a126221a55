package pe.quipu.api.http;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.testing.QuipuExtension;

import java.net.http.HttpResponse;

import static org.assertj.core.api.Assertions.assertThat;
import static pe.quipu.api.testing.ProblemAssert.assertProblem;

/** Problem Details on every error path, including those Jersey and Jetty produce themselves (contract §7). */
class ErrorsTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension().registering(new FailingResource());

    @Test
    void unknown_route_is_404_not_found() {
        HttpResponse<String> response = quipu.get("/v1/nothing-here", null);
        JsonNode body = assertProblem(response, 404, "not_found");
        assertThat(body.path("detail").asText()).contains("/v1/nothing-here");
        assertThat(response.headers().firstValue("Cache-Control")).hasValue("no-store");
    }

    @Test
    void unknown_route_is_404_even_with_a_valid_key() {
        assertProblem(quipu.get("/v2/ruc/20100227461", quipu.accounts.newKey(Scope.RUC_READ)), 404, "not_found");
    }

    @Test
    void wrong_method_is_405_with_allow() {
        HttpResponse<String> response = quipu.request("DELETE", "/v1/status", null);
        assertProblem(response, 405, "method_not_allowed");
        assertThat(response.headers().firstValue("Allow").orElse("")).contains("GET");
    }

    @Test
    void wrong_method_on_a_data_endpoint_is_405() {
        HttpResponse<String> response = quipu.request("PUT", "/v1/ruc/batch", quipu.accounts.newKey(Scope.RUC_READ));
        assertProblem(response, 405, "method_not_allowed");
        assertThat(response.headers().firstValue("Allow").orElse("")).contains("POST");
    }

    @Test
    void unsupported_content_type_is_415() {
        HttpResponse<String> response = quipu.post("/v1/ruc/batch", quipu.accounts.newKey(Scope.RUC_READ),
                "text/plain", "20100227461");
        assertProblem(response, 415, "unsupported_media_type");
    }

    @Test
    void a_body_without_content_type_is_415() {
        HttpResponse<String> response = quipu.post("/v1/ruc/batch", quipu.accounts.newKey(Scope.RUC_READ),
                null, "{\"rucs\": [\"20100227461\"]}");
        assertProblem(response, 415, "unsupported_media_type");
    }

    @Test
    void get_on_the_batch_path_is_405_not_a_bad_ruc() {
        HttpResponse<String> response = quipu.get("/v1/ruc/batch", quipu.accounts.newKey(Scope.RUC_READ));
        assertProblem(response, 405, "method_not_allowed");
        assertThat(response.headers().firstValue("Allow").orElse("")).contains("POST");
    }

    @Test
    void errors_answered_before_the_body_is_read_leave_the_connection_usable() {
        String key = quipu.accounts.newKey(Scope.RUC_READ);
        String body = "{\"rucs\": [\"20100227461\"]}" + " ".repeat(20_000);
        for (int i = 0; i < 30; i++) {
            // 401 from the auth filter and 415 are answered without reading the body; the pooled connection
            // must still carry the next request.
            assertProblem(quipu.post("/v1/ruc/batch", null, "application/json", body), 401, "unauthorized");
            assertThat(quipu.post("/v1/ruc/batch", key, "application/json", "{\"rucs\": [\"20100227461\"]}")
                    .statusCode()).isEqualTo(200);
            assertProblem(quipu.post("/v1/ruc/batch", key, "text/plain", body), 415, "unsupported_media_type");
            assertThat(quipu.get("/v1/status", null).statusCode()).isEqualTo(200);
        }
    }

    @Test
    void malformed_json_is_400_validation_error() {
        HttpResponse<String> response = quipu.post("/v1/ruc/batch", quipu.accounts.newKey(Scope.RUC_READ),
                "application/json", "{\"rucs\": [\"20100227461\"");
        assertProblem(response, 400, "validation_error");
    }

    @Test
    void unexpected_failure_is_500_internal_error_without_internals() {
        HttpResponse<String> response = quipu.get("/test-only/failure", null);
        JsonNode body = assertProblem(response, 500, "internal_error");
        assertThat(response.body()).doesNotContain(FailingResource.SECRET_DETAIL)
                .doesNotContain("IllegalStateException").doesNotContain("at pe.quipu");
        assertThat(body.path("detail").asText()).contains("Reference:");
    }

    @Test
    void a_malformed_uri_rejected_by_jetty_is_problem_details() throws Exception {
        String raw = quipu.raw("GET /v1/%zz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
        assertThat(raw).startsWith("HTTP/1.1 400");
        assertThat(raw).contains("Content-Type: application/problem+json");
        assertThat(raw).contains("\"type\":\"validation_error\"");
    }

    @Test
    void headers_too_large_for_jetty_are_problem_details() throws Exception {
        String raw = quipu.raw("GET /v1/status HTTP/1.1\r\nHost: localhost\r\nX-Big: " + "a".repeat(20_000)
                + "\r\nConnection: close\r\n\r\n");
        assertThat(raw).startsWith("HTTP/1.1 431");
        assertThat(raw).contains("Content-Type: application/problem+json");
    }

    @Test
    void problem_details_answer_even_when_the_client_asks_for_html() {
        HttpResponse<String> response = quipu.get("/v1/nothing-here", null, "Accept", "text/html");
        assertProblem(response, 404, "not_found");
    }
}
