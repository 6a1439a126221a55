package pe.quipu.api.status;

import com.codahale.metrics.health.HealthCheck;
import pe.quipu.core.fx.RateSeries;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The data Quipu serves is present and recent: the ubigeo catalogue, the RUC registry, and the exchange rates of every
 * source, each within its own limit ({@code freshness.exchangeRateMaxAge}, per source
 * {@code exchangeRateMaxAgeBySource}).
 */
public final class FreshnessHealthCheck extends HealthCheck {

    private static final ZoneId LIMA = ZoneId.of("America/Lima");

    private final Supplier<DataFreshness.Snapshot> freshness;
    private final Clock clock;
    private final Duration registryMaxAge;
    private final FreshnessSettings config;

    public FreshnessHealthCheck(Supplier<DataFreshness.Snapshot> freshness, Clock clock,
                                FreshnessSettings config) {
        this.freshness = freshness;
        this.clock = clock;
        this.registryMaxAge = config.getRegistryMaxAge().toJavaDuration();
        this.config = config;
    }

    @Override
    protected Result check() {
        DataFreshness.Snapshot s = freshness.get();
        Instant now = clock.instant();
        List<String> problems = new ArrayList<>();
        if (s.ubigeoCount() == 0) {
            problems.add("the ubigeo catalogue is empty");
        }
        if (s.registryLoadedAt() == null) {
            problems.add("the RUC registry has never been loaded (run the padron ETL job)");
        } else if (s.registryLoadedAt().isBefore(now.minus(registryMaxAge))) {
            problems.add("the RUC registry was last loaded at " + s.registryLoadedAt());
        }
        for (RateSeries series : RateSeries.all()) {
            LocalDate oldestAcceptable = now.minus(config.exchangeRateMaxAge(series.fuente()).toJavaDuration())
                    .atZone(LIMA).toLocalDate();
            LocalDate latest = s.latestRates().get(series.key());
            String named = series.fuente().publisher() + " " + series.moneda();
            if (latest == null) {
                problems.add("no " + named + " exchange rate has been captured");
            } else if (latest.isBefore(oldestAcceptable)) {
                problems.add("the latest " + named + " exchange rate is from " + latest);
            }
        }
        String summary = "registry rows=" + s.registryRows() + " loadedAt=" + s.registryLoadedAt()
                + ", ubigeos=" + s.ubigeoCount() + ", rates=" + s.latestRates();
        return problems.isEmpty() ? Result.healthy(summary) : Result.unhealthy(String.join("; ", problems) + " (" + summary + ")");
    }
}
