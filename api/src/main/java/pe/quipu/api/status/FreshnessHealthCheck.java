package pe.quipu.api.status;

import com.codahale.metrics.health.HealthCheck;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/** The data Quipu serves is present and recent: the ubigeo catalogue, the RUC registry, both exchange rates. */
public final class FreshnessHealthCheck extends HealthCheck {

    private static final ZoneId LIMA = ZoneId.of("America/Lima");

    private final Supplier<DataFreshness.Snapshot> freshness;
    private final Clock clock;
    private final Duration registryMaxAge;
    private final Duration rateMaxAge;

    public FreshnessHealthCheck(Supplier<DataFreshness.Snapshot> freshness, Clock clock,
                                FreshnessSettings config) {
        this.freshness = freshness;
        this.clock = clock;
        this.registryMaxAge = config.getRegistryMaxAge().toJavaDuration();
        this.rateMaxAge = config.getExchangeRateMaxAge().toJavaDuration();
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
        LocalDate oldestAcceptable = now.minus(rateMaxAge).atZone(LIMA).toLocalDate();
        for (String moneda : List.of("USD", "EUR")) {
            LocalDate latest = s.latestRates().get(moneda);
            if (latest == null) {
                problems.add("no " + moneda + " exchange rate has been captured");
            } else if (latest.isBefore(oldestAcceptable)) {
                problems.add("the latest " + moneda + " exchange rate is from " + latest);
            }
        }
        String summary = "registry rows=" + s.registryRows() + " loadedAt=" + s.registryLoadedAt()
                + ", ubigeos=" + s.ubigeoCount() + ", rates=" + s.latestRates();
        return problems.isEmpty() ? Result.healthy(summary) : Result.unhealthy(String.join("; ", problems) + " (" + summary + ")");
    }
}
