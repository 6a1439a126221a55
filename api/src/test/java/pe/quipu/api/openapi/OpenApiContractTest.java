package pe.quipu.api.openapi;

import org.junit.jupiter.api.Test;
import pe.quipu.api.testing.OpenApiContract;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/** The check every HTTP test's answers go through can fail: answers that break the document are caught. */
class OpenApiContractTest {

    private static final OpenApiContract CONTRACT = OpenApiContract.get();
    private static final String RECORD = """
            {"ruc":"20100227461","razonSocial":"TRANSPORTES CRUZ DEL SUR S.A.C.","estado":"ACTIVO",\
            "condicion":"HABIDO","tipo":null,"ubigeo":"150137","direccion":"AV. FRANCISCO BOLOGNESI NRO. 495",\
            "ciiu":null,"actualizado":"2026-10-07T15:00:00Z"}""";
    private static final Map<String, String> LOOKUP_HEADERS = Map.of("Content-Type", "application/json",
            "ETag", "\"abc\"", "Cache-Control", "public, max-age=3600, must-revalidate", "RateLimit-Limit", "60",
            "RateLimit-Remaining", "59", "RateLimit-Reset", "60", "X-Quota-Limit", "1000", "X-Quota-Remaining", "999",
            "RateLimit-Policy", "\"minute\";q=60;w=60, \"month\";q=1000",
            "RateLimit", "\"minute\";r=59;t=60, \"month\";r=999;t=2124000");

    @Test
    void an_answer_as_documented_passes() {
        assertThat(faults("GET", "/v1/ruc/20100227461", 200, LOOKUP_HEADERS, RECORD)).isEmpty();
        assertThat(faults("GET", "/v1/ruc/20100227461", 304, without(LOOKUP_HEADERS, "Content-Type"), "")).isEmpty();
    }

    @Test
    void a_missing_field_an_extra_field_or_a_wrong_type_fails() {
        assertThat(faults("GET", "/v1/ruc/20100227461", 200, LOOKUP_HEADERS,
                RECORD.replace(",\"actualizado\":\"2026-10-07T15:00:00Z\"", ""))).isNotEmpty();
        assertThat(faults("GET", "/v1/ruc/20100227461", 200, LOOKUP_HEADERS,
                RECORD.replace("{", "{\"departamento\":\"Lima\","))).isNotEmpty();
        assertThat(faults("GET", "/v1/ruc/20100227461", 200, LOOKUP_HEADERS,
                RECORD.replace("\"ubigeo\":\"150137\"", "\"ubigeo\":150137"))).isNotEmpty();
        assertThat(faults("GET", "/v1/ruc/20100227461", 200, LOOKUP_HEADERS,
                RECORD.replace("2026-10-07T15:00:00Z", "yesterday"))).isNotEmpty();
    }

    @Test
    void an_undocumented_status_header_or_media_type_fails() {
        assertThat(faults("GET", "/v1/ruc/20100227461", 418, Map.of("Content-Type", "application/problem+json"),
                "{\"type\":\"not_found\",\"title\":\"t\",\"status\":418,\"detail\":\"d\"}")).isNotEmpty();
        assertThat(faults("GET", "/v1/ruc/20100227461", 200, without(LOOKUP_HEADERS, "ETag"), RECORD)).isNotEmpty();
        assertThat(faults("GET", "/v1/ruc/20100227461", 200, with(LOOKUP_HEADERS, "Cache-Control", "no-store"), RECORD))
                .isNotEmpty();
        assertThat(faults("GET", "/v1/ruc/20100227461", 200, with(LOOKUP_HEADERS, "Content-Type", "text/plain"),
                RECORD)).isNotEmpty();
        assertThat(faults("GET", "/v1/ruc/20100227461", 200, with(LOOKUP_HEADERS, "RateLimit", "59"), RECORD))
                .isNotEmpty();
    }

    @Test
    void an_error_with_the_wrong_type_for_its_status_fails() {
        Map<String, String> problem = Map.of("Content-Type", "application/problem+json", "Cache-Control", "no-store");
        assertThat(faults("GET", "/v1/ruc/123", 400, problem,
                "{\"type\":\"validation_error\",\"title\":\"t\",\"status\":400,\"detail\":\"d\"}")).isEmpty();
        assertThat(faults("GET", "/v1/ruc/123", 400, problem,
                "{\"type\":\"not_found\",\"title\":\"t\",\"status\":400,\"detail\":\"d\"}")).isNotEmpty();
        assertThat(faults("GET", "/v1/ruc/123", 400, problem, "{\"type\":\"validation_error\"}")).isNotEmpty();
    }

    @Test
    void a_success_from_a_route_the_document_lacks_fails() {
        assertThat(faults("GET", "/v1/secret-route", 200, Map.of("Content-Type", "application/json"), "{}"))
                .isNotEmpty();
        assertThat(faults("PUT", "/v1/ruc/batch", 200, Map.of("Content-Type", "application/json"), "{}"))
                .isNotEmpty();
        assertThat(faults("GET", "/v1/secret-route", 404, Map.of("Content-Type", "application/problem+json"),
                "{\"type\":\"not_found\",\"title\":\"t\",\"status\":404,\"detail\":\"d\"}")).isEmpty();
    }

    private static List<String> faults(String method, String path, int status, Map<String, String> headers,
                                       String body) {
        Map<String, String> byName = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        byName.putAll(headers);
        return CONTRACT.faults(new OpenApiContract.Answer(method, path, status,
                name -> Optional.ofNullable(byName.get(name)), body, true));
    }

    private static Map<String, String> without(Map<String, String> headers, String name) {
        Map<String, String> copy = new TreeMap<>(headers);
        copy.remove(name);
        return copy;
    }

    private static Map<String, String> with(Map<String, String> headers, String name, String value) {
        Map<String, String> copy = new TreeMap<>(headers);
        copy.put(name, value);
        return copy;
    }
}
