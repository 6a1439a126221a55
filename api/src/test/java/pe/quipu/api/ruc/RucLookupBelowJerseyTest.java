package pe.quipu.api.ruc;

import com.fasterxml.jackson.databind.JsonNode;
import org.awaitility.core.ThrowingRunnable;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.testing.PadronFixtures;
import pe.quipu.api.testing.QuipuExtension;

import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A plain lookup is answered below Jersey ({@link RucLookupFilter}), the same lookup with an empty {@code include=}
 * by Jersey ({@link RucResource}): the two answers are the same, header for header and byte for byte, whatever the
 * outcome (a record, 304, an unknown RUC, a limit reached), and the filter's requests are metered and counted alike.
 */
class RucLookupBelowJerseyTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    private static final String KNOWN = "20100227461";
    /** Valid check digit, not in the sample. */
    private static final String ABSENT = "20123456786";
    /** What may differ between any two answers: their time, their id, and the counts left. */
    private static final Set<String> VARYING = Set.of("date", "x-request-id", "ratelimit-remaining", "ratelimit-reset",
            "x-quota-remaining", "ratelimit");

    @BeforeAll
    static void load() {
        PadronFixtures.load(quipu.database, QuipuExtension.START);
    }

    private static HttpResponse<String> below(String ruc, String key, String... headers) {
        return quipu.get("/v1/ruc/" + ruc, key, headers);
    }

    /** The same lookup, with a query string only Jersey reads (include, percent-encoded), which asks for nothing more. */
    private static HttpResponse<String> jersey(String ruc, String key, String... headers) {
        return quipu.get("/v1/ruc/" + ruc + "?%69nclude=", key, headers);
    }

    /** The answer's headers that do not vary, by lower-case name. */
    private static Map<String, Object> stable(HttpHeaders headers) {
        Map<String, Object> kept = new TreeMap<>();
        headers.map().forEach((name, values) -> {
            if (!VARYING.contains(name.toLowerCase(java.util.Locale.ROOT))) {
                kept.put(name.toLowerCase(java.util.Locale.ROOT), values);
            }
        });
        return kept;
    }

    private static Set<String> names(HttpHeaders headers) {
        Set<String> names = new TreeSet<>();
        headers.map().keySet().forEach(n -> names.add(n.toLowerCase(java.util.Locale.ROOT)));
        return names;
    }

    private static void assertSame(HttpResponse<String> below, HttpResponse<String> jersey) {
        assertThat(below.statusCode()).isEqualTo(jersey.statusCode());
        assertThat(names(below.headers())).isEqualTo(names(jersey.headers()));
        assertThat(stable(below.headers())).isEqualTo(stable(jersey.headers()));
    }

    @Test
    void a_record_its_304_and_an_unknown_ruc_are_answered_alike() throws Exception {
        String key = quipu.accounts.newKey(Scope.RUC_READ);

        HttpResponse<String> record = below(KNOWN, key);
        assertThat(record.statusCode()).isEqualTo(200);
        assertSame(record, jersey(KNOWN, key));
        assertThat(record.body()).isEqualTo(jersey(KNOWN, key).body());

        String etag = record.headers().firstValue("ETag").orElseThrow();
        HttpResponse<String> notModified = below(KNOWN, key, "If-None-Match", etag);
        assertThat(notModified.statusCode()).isEqualTo(304);
        assertThat(notModified.body()).isEmpty();
        assertSame(notModified, jersey(KNOWN, key, "If-None-Match", etag));

        HttpResponse<String> unknown = below(ABSENT, key);
        HttpResponse<String> unknownByJersey = jersey(ABSENT, key);
        assertSame(unknown, unknownByJersey);
        JsonNode problem = quipu.body(unknown);
        assertThat(problem.path("type").asText()).isEqualTo("not_found");
        assertThat(problem.path("requestId").asText())
                .isEqualTo(unknown.headers().firstValue("X-Request-Id").orElseThrow());
        JsonNode withoutId = problem.deepCopy();
        JsonNode byJersey = quipu.body(unknownByJersey).deepCopy();
        ((com.fasterxml.jackson.databind.node.ObjectNode) withoutId).remove("requestId");
        ((com.fasterxml.jackson.databind.node.ObjectNode) byJersey).remove("requestId");
        assertThat(withoutId.toString()).isEqualTo(byJersey.toString());
        // In the request's language, as any Problem.
        HttpResponse<String> spanish = below(ABSENT, key, "Accept-Language", "es-PE");
        assertThat(spanish.headers().firstValue("Content-Language")).contains("es");
        assertThat(quipu.body(spanish).path("detail").asText())
                .isEqualTo(quipu.body(jersey(ABSENT, key, "Accept-Language", "es-PE")).path("detail").asText());
    }

    @Test
    void each_answer_is_metered_as_jerseys_are_and_a_limit_reached_is_the_same_429() {
        String key = quipu.accounts.newKey("free", 1_000L, 3, Scope.RUC_READ);
        HttpResponse<String> first = below(KNOWN, key);
        HttpResponse<String> second = below(ABSENT, key);
        // A record and an unknown RUC each spend a unit and a request of the minute.
        assertThat(first.headers().firstValue("X-Quota-Remaining")).contains("999");
        assertThat(second.headers().firstValue("X-Quota-Remaining")).contains("998");
        assertThat(second.headers().firstValue("RateLimit-Remaining")).contains("1");
        assertThat(jersey(KNOWN, key).headers().firstValue("RateLimit-Remaining")).contains("0");

        HttpResponse<String> limited = below(KNOWN, key);
        HttpResponse<String> limitedByJersey = jersey(KNOWN, key);
        assertThat(limited.statusCode()).isEqualTo(429);
        assertSame(limited, limitedByJersey);
        assertThat(limited.headers().firstValue("Retry-After")).isPresent();
        assertThat(quipu.body(limited).path("type").asText()).isEqualTo("rate_limited");
        // Refused, it spent nothing.
        assertThat(limited.headers().firstValue("X-Quota-Remaining")).contains("997");
    }

    @Test
    void a_lookup_with_its_lists_and_premises_is_answered_alike() {
        String key = quipu.accounts.newKey(Scope.RUC_READ);
        HttpResponse<String> below = quipu.get("/v1/ruc/" + KNOWN + "?include=padrones,anexos", key);
        HttpResponse<String> byJersey = quipu.get("/v1/ruc/" + KNOWN + "?include=padrones%2Canexos", key);
        assertThat(below.statusCode()).isEqualTo(200);
        assertSame(below, byJersey);
        assertThat(below.body()).isEqualTo(byJersey.body());
        // An unknown name is Jersey's to refuse.
        assertThat(quipu.get("/v1/ruc/" + KNOWN + "?include=otros", key).statusCode()).isEqualTo(400);
    }

    @Test
    void requests_it_leaves_to_jersey_get_jerseys_answers() {
        String key = quipu.accounts.newKey(Scope.RUC_READ);
        assertThat(below(KNOWN, null).statusCode()).isEqualTo(401);
        assertThat(below(KNOWN, quipu.accounts.newKey(Scope.UBIGEOS_READ)).statusCode()).isEqualTo(403);
        assertThat(below("20100227462", key).statusCode()).isEqualTo(400);
        assertThat(below(KNOWN, key, "Accept", "text/html").statusCode()).isEqualTo(406);
        HttpResponse<String> head = quipu.send(HttpRequest.newBuilder(quipu.uri("/v1/ruc/" + KNOWN))
                .method("HEAD", HttpRequest.BodyPublishers.noBody()), key);
        assertThat(head.statusCode()).isEqualTo(200);
        assertThat(head.headers().firstValue("ETag")).isEqualTo(below(KNOWN, key).headers().firstValue("ETag"));
    }

    @Test
    void its_answers_count_under_the_route_and_the_resource_timer_and_as_answered_below_jersey() {
        String key = quipu.accounts.newKey(Scope.RUC_READ);
        long before = timerCount();
        double routed = routeCount();
        long answered = answeredBelow();
        for (int i = 0; i < 3; i++) {
            assertThat(below(KNOWN, key).statusCode()).isEqualTo(200);
        }
        // Counting ends as the filters return, which can be just after the client has the whole answer.
        settled(() -> {
            assertThat(timerCount()).isEqualTo(before + 3);
            assertThat(routeCount()).isEqualTo(routed + 3);
            assertThat(answeredBelow()).isEqualTo(answered + 3);
        });
        // What Jersey answers is not counted as answered below it.
        jersey(KNOWN, key);
        below(KNOWN, null);
        below(KNOWN, key, "Accept", "text/html");
        // The resource's timer counts the lookups that reached a resource method: the plain ones and Jersey's.
        settled(() -> assertThat(timerCount()).isEqualTo(before + 4));
        assertThat(answeredBelow()).isEqualTo(answered + 3);
    }

    private static void settled(ThrowingRunnable assertion) {
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20)).untilAsserted(assertion);
    }

    private static long answeredBelow() {
        return quipu.environment().metrics().getCounters()
                .get(com.codahale.metrics.MetricRegistry.name(RucLookupFilter.class, "answered")).getCount();
    }

    private static long timerCount() {
        return quipu.environment().metrics().getTimers()
                .get(com.codahale.metrics.MetricRegistry.name(RucResource.class, "lookup")).getCount();
    }

    /** quipu_requests_total of GET /v1/ruc/{ruc} answered 200, from /prometheus. */
    private static double routeCount() {
        String scrape = quipu.send(HttpRequest.newBuilder(quipu.adminUri("/prometheus")), null).body();
        return scrape.lines()
                .filter(l -> l.startsWith("quipu_requests_total{") && l.contains("route=\"/v1/ruc/{ruc}\"")
                        && l.contains("method=\"GET\"") && l.contains("status=\"200\""))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                .sum();
    }
}
