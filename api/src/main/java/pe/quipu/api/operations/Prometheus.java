package pe.quipu.api.operations;

import com.codahale.metrics.MetricRegistry;
import io.dropwizard.core.setup.Environment;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.exporter.servlet.jakarta.PrometheusMetricsServlet;
import io.prometheus.metrics.instrumentation.dropwizard.DropwizardExports;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import pe.quipu.api.http.RequestMetrics;

/**
 * {@code GET /prometheus} on the admin connector (contract §13), in the text format 0.0.4 unless the scraper asks for
 * another: the features' {@code quipu_*} families, the JVM's metrics (the official client's), and Dropwizard's
 * registry bridged (Jetty's connectors, threads and handler, the connection pool, Jersey's timers), with the
 * application's requests as {@code quipu_requests_total} and {@code quipu_request_duration_seconds}.
 */
public final class Prometheus {

    /** Seconds: from 2.5 ms, where a cached lookup answers, to 10 s, where a batch or an export may take. */
    static final double[] DURATION_BUCKETS = {0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};

    private Prometheus() {
    }

    public static void serve(Environment environment, PrometheusRegistry registry, MetricRegistry dropwizard) {
        JvmMetrics.builder().register(registry);
        // The JVM's own are above; Dropwizard's copies of them would only repeat them under other names. Jersey's
        // inflector timers are what quipu_requests_* say better, and their "….apply" and "….apply.total" collide
        // once dots are underscores (a duplicate name fails the whole scrape).
        DropwizardExports.builder().dropwizardRegistry(dropwizard)
                .metricFilter((name, metric) -> !name.startsWith("jvm.") && !name.startsWith("org.glassfish.jersey.")
                        && !name.endsWith(".total"))
                .register(registry);

        Counter requests = Counter.builder().name("quipu_requests_total")
                .help("Requests answered on the application connector, by route template, method and status")
                .labelNames("route", "method", "status").register(registry);
        Histogram durations = Histogram.builder().name("quipu_request_duration_seconds")
                .help("How long the application connector's requests took, by route template")
                .labelNames("route").classicOnly().classicUpperBounds(DURATION_BUCKETS).register(registry);
        RequestMetrics.install(environment, (route, method, status, nanos) -> {
            requests.labelValues(route, method, Integer.toString(status)).inc();
            durations.labelValues(route).observe(nanos / 1e9);
        });
        environment.admin().addServlet("prometheus", new PrometheusMetricsServlet(registry)).addMapping("/prometheus");
    }
}
