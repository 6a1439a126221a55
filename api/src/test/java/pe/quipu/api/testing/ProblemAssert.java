package pe.quipu.api.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpResponse;

import static org.assertj.core.api.Assertions.assertThat;

/** Checks an answer is Problem Details with this status and type. */
public final class ProblemAssert {

    private static final ObjectMapper JSON = new ObjectMapper();

    private ProblemAssert() {
    }

    public static JsonNode assertProblem(HttpResponse<String> response, int status, String type) {
        assertThat(response.statusCode()).as("status of %s", response.body()).isEqualTo(status);
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        JsonNode body;
        try {
            body = JSON.readTree(response.body());
        } catch (IOException e) {
            throw new UncheckedIOException("not JSON: " + response.body(), e);
        }
        assertThat(body.path("type").asText()).isEqualTo(type);
        assertThat(body.path("status").asInt()).isEqualTo(status);
        assertThat(body.path("title").asText()).isNotBlank();
        assertThat(body.path("detail").asText()).isNotBlank();
        return body;
    }

    /**
     * A Problem body less its {@code requestId}, the member that differs on every request (contract §13), which it
     * checks is there and last: for comparing two answers byte for byte where nothing else may tell them apart (an
     * unknown e-mail and a wrong password), or an answer with what it was before request ids.
     */
    public static String withoutRequestId(String body) {
        assertThat(body).containsPattern(",\"requestId\":\"[0-9a-f]{32}\"}$");
        return body.replaceFirst(",\"requestId\":\"[0-9a-f]{32}\"}$", "}");
    }
}
