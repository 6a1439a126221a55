package pe.quipu.api.status;

import io.dropwizard.core.setup.Environment;
import pe.quipu.api.platform.Platform;

/**
 * The status feature assembled: {@code /v1/status} (public; it says which environment answers), and the
 * data-freshness health check, and the same ages as Prometheus gauges.
 */
public final class Status {

    private Status() {
    }

    public static void serve(Platform platform, Environment environment, FreshnessSettings settings, String version,
                             String environmentName) {
        DataFreshness freshness = new DataFreshness(platform.jdbi());
        environment.jersey().register(new StatusResource(freshness, platform.clock(), version, environmentName));
        environment.healthChecks().register("data-freshness",
                new FreshnessHealthCheck(freshness::read, platform.clock(), settings));
        DatasetMetrics.register(platform.prometheus(), platform.jdbi(), platform.clock());
    }
}
