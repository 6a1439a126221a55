package pe.quipu.api.ruc;

import jakarta.servlet.http.HttpServletRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.reflect.Proxy;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Which lookups are answered below Jersey: the plain ones, and nothing Jersey could answer otherwise. */
class RucLookupFilterTest {

    /** A request as the servlet container gives it: only what the filter reads. */
    private static HttpServletRequest request(String method, String uri, String query, long contentLength,
                                              Map<String, List<String>> headers) {
        return (HttpServletRequest) Proxy.newProxyInstance(RucLookupFilterTest.class.getClassLoader(),
                new Class<?>[] {HttpServletRequest.class}, (proxy, m, args) -> switch (m.getName()) {
                    case "getMethod" -> method;
                    case "getRequestURI" -> uri;
                    case "getQueryString" -> query;
                    case "getContentLengthLong" -> contentLength;
                    case "getHeader" -> headers.getOrDefault((String) args[0], List.of()).stream().findFirst()
                            .orElse(null);
                    case "getHeaders" -> Collections.enumeration(headers.getOrDefault((String) args[0], List.of()));
                    default -> throw new UnsupportedOperationException(m.getName());
                });
    }

    private static HttpServletRequest get(String uri) {
        return request("GET", uri, null, -1, Map.of());
    }

    @Test
    void a_plain_get_of_a_valid_ruc_is_answered_here() {
        assertThat(RucLookupFilter.plainLookup(get("/v1/ruc/20100227461"))).hasToString("20100227461");
    }

    @Test
    void anything_else_goes_to_jersey() {
        // Another method, a path that is not one valid RUC (the query string is plainInclude's to read).
        assertThat(RucLookupFilter.plainLookup(request("HEAD", "/v1/ruc/20100227461", null, -1, Map.of()))).isNull();
        for (String uri : List.of("/v1/ruc/20100227462", "/v1/ruc/2010022746", "/v1/ruc/201002274611",
                "/v1/ruc/20100227461/", "/v1/ruc/batch", "/v1/ruc/2010022746%31", "/v1/ruc/30100227461",
                "/v1/rucs/20100227461")) {
            assertThat(RucLookupFilter.plainLookup(get(uri))).as(uri).isNull();
        }
        // A body, announced either way.
        assertThat(RucLookupFilter.plainLookup(request("GET", "/v1/ruc/20100227461", null, 2, Map.of()))).isNull();
        assertThat(RucLookupFilter.plainLookup(request("GET", "/v1/ruc/20100227461", null, -1,
                Map.of("Transfer-Encoding", List.of("chunked"))))).isNull();
        // An Accept that does not take JSON is Jersey's to refuse (406).
        assertThat(RucLookupFilter.plainLookup(request("GET", "/v1/ruc/20100227461", null, -1,
                Map.of("Accept", List.of("text/html"))))).isNull();
    }

    @Test
    void include_written_plainly_is_read_here_and_any_other_query_string_is_left_to_jersey() {
        assertThat(RucLookupFilter.plainInclude(null)).isEqualTo(Include.NOTHING);
        assertThat(RucLookupFilter.plainInclude("include=")).isEqualTo(Include.NOTHING);
        assertThat(RucLookupFilter.plainInclude("include=padrones")).isEqualTo(new Include(true, false));
        assertThat(RucLookupFilter.plainInclude("include=anexos,padrones")).isEqualTo(new Include(true, true));
        assertThat(RucLookupFilter.plainInclude("include=padrones&include=anexos")).isEqualTo(new Include(true, true));
        for (String query : List.of("", "include", "include=PADRONES", "include=otros", "include=padrones%2Canexos",
                "include=padrones&foo=1", "access_token=qk_live_x", "include=padrones&", "Include=padrones",
                "include=padrones;anexos")) {
            assertThat(RucLookupFilter.plainInclude(query)).as(query).isNull();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"application/json", "*/*", "application/*", "text/html, application/json;q=0.9",
            "APPLICATION/JSON", "application/json; charset=utf-8", "text/plain,*/*;q=0.1"})
    void an_accept_that_takes_json_is_plain(String accept) {
        assertThat(RucLookupFilter.acceptsJson(Collections.enumeration(List.of(accept)))).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"text/html", "application/xml", "application/json;q=0", "application/json;q=0.0",
            "*/*;q=0, application/json", "application/problem+json", ""})
    void an_accept_that_refuses_or_does_not_name_json_is_not(String accept) {
        assertThat(RucLookupFilter.acceptsJson(Collections.enumeration(List.of(accept)))).isFalse();
    }

    @Test
    void no_accept_takes_anything_and_several_headers_are_read_together() {
        assertThat(RucLookupFilter.acceptsJson(Collections.emptyEnumeration())).isTrue();
        assertThat(RucLookupFilter.acceptsJson(Collections.enumeration(List.of("text/html", "application/json"))))
                .isTrue();
    }
}
