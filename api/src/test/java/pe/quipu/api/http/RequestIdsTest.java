package pe.quipu.api.http;

import ch.qos.logback.classic.spi.ILoggingEvent;
import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.testing.LogCapture;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.api.testing.StandardErrorTee;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** {@code X-Request-Id} (contract §13): kept or made, on every answer, in Problem bodies and in the logs. */
class RequestIdsTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension().registering(new FailingResource());

    @Test
    void a_valid_id_is_kept_and_anything_else_replaced() {
        for (String valid : List.of("a", "req-42", "A.b_C-9", "x".repeat(128), "0f9c1e2d-3b4a-4c5d-8e6f-7a8b9c0d1e2f")) {
            assertThat(RequestIds.keepOrMake(valid)).isEqualTo(valid);
        }
        for (String invalid : new String[] {null, "", "x".repeat(129), "a b", "a/b", "a\u00e9", "id\r\nX-Evil: 1",
                "a;b", "{\"json\":1}"}) {
            assertThat(RequestIds.keepOrMake(invalid)).matches("[0-9a-f]{32}");
        }
        Set<String> made = new HashSet<>();
        for (int i = 0; i < 1000; i++) {
            made.add(RequestIds.make());
        }
        assertThat(made).hasSize(1000);
    }

    @Test
    void every_answer_echoes_a_valid_client_id() {
        HttpResponse<String> status = quipu.get("/v1/status", null, "X-Request-Id", "client.id-1_A");
        assertThat(status.headers().firstValue("X-Request-Id")).hasValue("client.id-1_A");
        HttpResponse<String> probe = quipu.get("/livez", null, "X-Request-Id", "probe-1");
        assertThat(probe.headers().firstValue("X-Request-Id")).hasValue("probe-1");
        HttpResponse<String> admin = quipu.send(HttpRequest.newBuilder(quipu.adminUri("/ping")), null,
                "X-Request-Id", "admin-1");
        assertThat(admin.headers().firstValue("X-Request-Id")).hasValue("admin-1");
    }

    @Test
    void an_invalid_or_missing_id_is_replaced_by_a_new_one_each_time() {
        String first = quipu.get("/v1/status", null).headers().firstValue("X-Request-Id").orElseThrow();
        String second = quipu.get("/v1/status", null, "X-Request-Id", "x".repeat(129)).headers()
                .firstValue("X-Request-Id").orElseThrow();
        String third = quipu.get("/v1/status", null, "X-Request-Id", "a%20b").headers()
                .firstValue("X-Request-Id").orElseThrow();
        assertThat(List.of(first, second, third)).allSatisfy(id -> assertThat(id).matches("[0-9a-f]{32}"))
                .doesNotHaveDuplicates();
    }

    @Test
    void problem_bodies_carry_the_id_of_their_answer() {
        assertCarried(quipu.get("/v1/ruc/20100227461", null, "X-Request-Id", "p-401"), 401, "p-401");
        assertCarried(quipu.get("/v1/no-such-route", null, "X-Request-Id", "p-404"), 404, "p-404");
        assertCarried(quipu.get("/test-only/failure", null, "X-Request-Id", "p-500"), 500, "p-500");
        HttpResponse<String> made = quipu.get("/v1/no-such-route", null);
        assertCarried(made, 404, made.headers().firstValue("X-Request-Id").orElseThrow());
        HttpResponse<String> task = quipu.send(HttpRequest.newBuilder(quipu.adminUri("/tasks/gc"))
                .POST(HttpRequest.BodyPublishers.noBody()), null, "X-Request-Id", "p-task");
        assertCarried(task, 401, "p-task");
    }

    @Test
    void a_request_jetty_cannot_parse_gets_an_id_in_its_header_and_body() {
        String answer = quipu.raw("GET /v1/status HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header\r\n\r\n");
        RawIds ids = RawIds.of(answer);
        assertThat(answer).startsWith("HTTP/1.1 400");
        assertThat(ids.header()).matches("[0-9a-f]{32}");
        assertThat(ids.body()).isEqualTo(ids.header());
    }

    @Test
    void the_request_log_and_every_log_line_written_while_serving_carry_the_id() {
        String log;
        List<ILoggingEvent> events;
        try (StandardErrorTee tee = StandardErrorTee.open(); LogCapture capture = LogCapture.start()) {
            quipu.get("/test-only/failure", null, "X-Request-Id", "logged-500");
            quipu.get("/v1/status", null, "X-Request-Id", "logged-200");
            await().until(() -> tee.text().contains("logged-200"));
            log = tee.text();
            events = capture.events();
        }
        assertThat(log.lines().filter(l -> l.contains("\"GET /test-only/failure HTTP/1.1\" 500")))
                .singleElement().asString().endsWith(" logged-500");
        assertThat(log.lines().filter(l -> l.contains("\"GET /v1/status HTTP/1.1\" 200")))
                .anySatisfy(l -> assertThat(l).endsWith(" logged-200"));
        // The unexpected exception's ERROR line, written by the exception mapper while serving the request.
        assertThat(events).filteredOn(e -> e.getFormattedMessage() != null && e.getLevel().toString().equals("ERROR"))
                .isNotEmpty()
                .allSatisfy(e -> assertThat(e.getMDCPropertyMap()).containsEntry("requestId", "logged-500"));
        // Nothing leaks into the lines written outside a request.
        assertThat(RequestIds.current()).isNull();
    }

    private static void assertCarried(HttpResponse<String> response, int status, String id) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
        assertThat(response.headers().firstValue("X-Request-Id")).hasValue(id);
        JsonNode body = quipu.body(response);
        assertThat(body.path("requestId").asText()).isEqualTo(id);
    }

    /** The id in a raw answer's header and in its body. */
    private record RawIds(String header, String body) {
        static RawIds of(String answer) {
            String header = answer.lines().filter(l -> l.regionMatches(true, 0, "X-Request-Id:", 0, 13))
                    .map(l -> l.substring(13).strip()).findFirst().orElse(null);
            String body = answer.replaceAll("(?s).*\"requestId\":\"([^\"]+)\".*", "$1");
            return new RawIds(header, body);
        }
    }
}
