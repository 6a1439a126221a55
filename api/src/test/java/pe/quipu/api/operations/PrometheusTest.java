package pe.quipu.api.operations;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.testing.QuipuExtension;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code GET /prometheus} on the admin connector (contract §13): the exposition parsed line by line, every named
 * family with its labels, counters moving with requests, and route labels that are templates, never raw paths.
 */
class PrometheusTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    /** {@code name{label="value",…} value}, the text format 0.0.4's sample line. */
    private static final Pattern SAMPLE = Pattern.compile(
            "([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)})? (-?[0-9.eE+-]+|NaN|\\+Inf|-Inf)(?: -?[0-9]+)?");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    @Test
    void the_exposition_is_text_format_0_0_4_and_every_line_parses() {
        HttpResponse<String> response = scrapeResponse();
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(type ->
                assertThat(type).startsWith("text/plain").contains("version=0.0.4"));
        List<String> unparsed = new ArrayList<>();
        for (String line : response.body().lines().toList()) {
            if (line.isEmpty() || line.startsWith("# HELP ") || line.startsWith("# TYPE ")) {
                continue;
            }
            Matcher sample = SAMPLE.matcher(line);
            if (!sample.matches() || (sample.group(2) != null && !labels(sample.group(2)).valid())) {
                unparsed.add(line);
            }
        }
        assertThat(unparsed).isEmpty();
    }

    @Test
    void every_named_family_is_there_with_its_labels_and_the_jvm_jetty_and_pool_metrics() {
        quipu.database.jdbi().useHandle(h -> {
            h.execute("""
                    insert into batch_job_instance (job_instance_id, version, job_name, job_key)
                    values (990001, 0, 'padron', 'prometheus-test') on conflict do nothing""");
            h.execute("""
                    insert into batch_job_execution (job_execution_id, version, job_instance_id, create_time, start_time,
                                                     end_time, status, exit_code)
                    values (990001, 0, 990001, ?, ?, ?, 'COMPLETED', 'COMPLETED') on conflict do nothing""",
                    LocalDateTime.now(ZoneId.systemDefault()), LocalDateTime.now(ZoneId.systemDefault()),
                    LocalDateTime.now(ZoneId.systemDefault()));
        });
        quipu.get("/v1/ubigeos/150101", quipu.accounts.newKey(Scope.UBIGEOS_READ));
        // A list loaded an hour before the test clock's now (removed again: other tests read dataset_loads).
        quipu.database.jdbi().useHandle(h -> h.execute(
                "insert into dataset_loads (dataset, rows, loaded_at) values ('prometheus-test-list', 1, ?)",
                quipu.clock.instant().minusSeconds(3600)));
        List<Sample> samples;
        try {
            samples = scrape();
        } finally {
            quipu.database.jdbi().useHandle(h ->
                    h.execute("delete from dataset_loads where dataset = 'prometheus-test-list'"));
        }

        assertThat(find(samples, "quipu_requests_total")).anySatisfy(s ->
                assertThat(s.labels()).containsKeys("route", "status").containsEntry("route", "/v1/ubigeos/{code}"));
        assertThat(find(samples, "quipu_request_duration_seconds_bucket")).anySatisfy(s ->
                assertThat(s.labels()).containsKeys("route", "le"));
        assertThat(find(samples, "quipu_request_duration_seconds_count")).isNotEmpty();
        assertThat(find(samples, "quipu_quota_rejections_total")).extracting(s -> s.labels().get("type"))
                .contains("rate_limited", "quota_exceeded");
        assertThat(find(samples, "quipu_webhook_deliveries_pending")).singleElement()
                .satisfies(s -> assertThat(s.value()).isGreaterThanOrEqualTo(0));
        assertThat(find(samples, "quipu_webhook_attempts_total")).anySatisfy(s ->
                assertThat(s.labels()).containsEntry("outcome", "delivered"));
        assertThat(find(samples, "quipu_webhook_attempt_duration_seconds_count")).isNotEmpty();
        assertThat(find(samples, "quipu_dataset_age_seconds")).anySatisfy(s -> {
            assertThat(s.labels()).containsEntry("dataset", "prometheus-test-list");
            assertThat(s.value()).isEqualTo(3600.0);
        });
        assertThat(find(samples, "quipu_etl_last_run_timestamp_seconds")).anySatisfy(s ->
                assertThat(s.labels()).containsEntry("job", "padron").containsEntry("status", "completed"));

        Set<String> names = new HashSet<>();
        samples.forEach(s -> names.add(s.name()));
        assertThat(names).as("JVM").contains("jvm_memory_used_bytes", "jvm_threads_current");
        assertThat(names).as("Jetty").anyMatch(n -> n.contains("jetty") && n.contains("requests"));
        assertThat(names).as("the connection pool").anyMatch(n -> n.contains("io_dropwizard_db") && n.contains("active"));
    }

    @Test
    void the_request_counter_and_histogram_move_with_requests() {
        String key = quipu.accounts.newKey(Scope.UBIGEOS_READ);
        Map<String, String> ok = Map.of("route", "/v1/ubigeos/{code}", "method", "GET", "status", "200");
        double before = value(scrape(), "quipu_requests_total", ok);
        double countBefore = value(scrape(), "quipu_request_duration_seconds_count",
                Map.of("route", "/v1/ubigeos/{code}"));
        for (int i = 0; i < 3; i++) {
            assertThat(quipu.get("/v1/ubigeos/150101", key).statusCode()).isEqualTo(200);
        }
        // A request is counted as its filter returns, which can be just after the client has the whole answer.
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20)).untilAsserted(() -> {
            List<Sample> after = scrape();
            assertThat(value(after, "quipu_requests_total", ok)).isEqualTo(before + 3);
            assertThat(value(after, "quipu_request_duration_seconds_count", Map.of("route", "/v1/ubigeos/{code}")))
                    .isEqualTo(countBefore + 3);
        });
    }

    @Test
    void a_refusal_of_the_per_minute_rate_is_counted_by_type() {
        String key = quipu.accounts.newKey("free", null, 1, Scope.UBIGEOS_READ);
        double before = value(scrape(), "quipu_quota_rejections_total", Map.of("type", "rate_limited"));
        assertThat(quipu.get("/v1/ubigeos/150101", key).statusCode()).isEqualTo(200);
        assertThat(quipu.get("/v1/ubigeos/150101", key).statusCode()).isEqualTo(429);
        assertThat(value(scrape(), "quipu_quota_rejections_total", Map.of("type", "rate_limited")))
                .isEqualTo(before + 1);
    }

    @Test
    void route_labels_are_templates_and_no_raw_ruc_reaches_a_label() {
        String key = quipu.accounts.newKey(Scope.RUC_READ);
        quipu.get("/v1/ruc/20100227461", key);
        quipu.get("/v1/ruc/20999999991", key);
        quipu.get("/v1/ruc/123", key);
        quipu.get("/v1/ruc/20100227461/anything/20100227461", key);
        quipu.get("/v1/nope/20100227461", null);
        quipu.get("/docs/", null);
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20)).untilAsserted(() -> {
            String exposition = scrapeResponse().body();
            assertThat(exposition).doesNotContain("20100227461", "20999999991");
            Set<String> routes = new HashSet<>();
            for (Sample sample : scrape()) {
                String route = sample.labels().get("route");
                if (route != null) {
                    routes.add(route);
                }
            }
            assertThat(routes).contains("/v1/ruc/{ruc}", "/docs/*", "unmatched")
                    .allSatisfy(route -> assertThat(route).doesNotContainPattern("[0-9]{8,}"));
        });
    }

    private static HttpResponse<String> scrapeResponse() {
        return quipu.send(HttpRequest.newBuilder(quipu.adminUri("/prometheus")), null);
    }

    private record Sample(String name, Map<String, String> labels, double value) {
    }

    private record Labels(Map<String, String> map, boolean valid) {
    }

    private static Labels labels(String text) {
        Map<String, String> map = new LinkedHashMap<>();
        Matcher label = LABEL.matcher(text);
        int end = 0;
        while (label.find() && label.start() == end) {
            map.put(label.group(1), label.group(2));
            end = label.end();
            if (end < text.length() && text.charAt(end) == ',') {
                end++;
            }
        }
        return new Labels(map, end == text.length());
    }

    private static List<Sample> scrape() {
        List<Sample> samples = new ArrayList<>();
        for (String line : scrapeResponse().body().lines().toList()) {
            Matcher sample = SAMPLE.matcher(line);
            if (!line.startsWith("#") && sample.matches()) {
                samples.add(new Sample(sample.group(1), sample.group(2) == null ? Map.of()
                        : labels(sample.group(2)).map(), Double.parseDouble(sample.group(3)
                        .replace("+Inf", "Infinity").replace("-Inf", "-Infinity"))));
            }
        }
        return samples;
    }

    private static List<Sample> find(List<Sample> samples, String name) {
        return samples.stream().filter(s -> s.name().equals(name)).toList();
    }

    /** The value of the series with these labels (and perhaps others), 0 when absent. */
    private static double value(List<Sample> samples, String name, Map<String, String> labels) {
        return find(samples, name).stream().filter(s -> s.labels().entrySet().containsAll(labels.entrySet()))
                .mapToDouble(Sample::value).sum();
    }
}
