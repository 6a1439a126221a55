package pe.quipu.api.operations;

import com.codahale.metrics.MetricRegistry;
import io.dropwizard.core.setup.Environment;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.exporter.servlet.jakarta.PrometheusMetricsServlet;
import io.prometheus.metrics.instrumentation.dropwizard.DropwizardExports;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import pe.quipu.api.http.RequestMetrics;

import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;

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

    public static void serve(Environment environment, PrometheusRegistry registry, MetricRegistry dropwizard,
                             boolean instrumentRequests) {
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
                .labelNames("route", "method", "status").withoutExemplars().register(registry);
        Histogram durations = Histogram.builder().name("quipu_request_duration_seconds")
                .help("How long the application connector's requests took, by route template")
                .labelNames("route").classicOnly().classicUpperBounds(DURATION_BUCKETS).withoutExemplars()
                .register(registry);
        if (instrumentRequests) {
            RequestSeries series = new RequestSeries(requests, durations);
            RequestMetrics.install(environment, series::observe);
        }
        environment.admin().addServlet("prometheus", new PrometheusMetricsServlet(registry)).addMapping("/prometheus");
    }

    /**
     * Each route's series, looked up once: the client's labelValues builds and hashes a list of its labels at every
     * call, a cost the cheapest lookups notice (bench/operations.sh). Methods beyond the usual seven count as OTHER,
     * so that a client sending made-up methods cannot add series.
     */
    static final class RequestSeries {
        static final List<String> METHODS = List.of("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS",
                "OTHER");

        private final Counter requests;
        private final Histogram durations;
        private final ConcurrentHashMap<String, Route> routes = new ConcurrentHashMap<>();

        RequestSeries(Counter requests, Histogram durations) {
            this.requests = requests;
            this.durations = durations;
        }

        void observe(String route, String method, int status, long nanos) {
            Route series = routes.computeIfAbsent(route, Route::new);
            series.counter(method, status).inc();
            series.duration.observe(nanos / 1e9);
        }

        private final class Route {
            private final String route;
            private final DistributionDataPoint duration;
            /** By method index × 500 + status − 100. */
            private final AtomicReferenceArray<CounterDataPoint> counters =
                    new AtomicReferenceArray<>(METHODS.size() * 500);

            private Route(String route) {
                this.route = route;
                this.duration = durations.labelValues(route);
            }

            CounterDataPoint counter(String method, int status) {
                int m = METHODS.indexOf(method);
                if (m < 0) {
                    m = METHODS.size() - 1;
                }
                int s = status < 100 || status > 599 ? 500 : status;
                int index = m * 500 + s - 100;
                CounterDataPoint point = counters.get(index);
                if (point == null) {
                    point = requests.labelValues(route, METHODS.get(m), Integer.toString(s));
                    counters.set(index, point);
                }
                return point;
            }
        }
    }
}
