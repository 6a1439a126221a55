package pe.quipu.api.status;

import com.codahale.metrics.health.HealthCheck;
import org.junit.jupiter.api.Test;
import pe.quipu.core.testing.MutableClock;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class FreshnessHealthCheckTest {

    private static final Instant NOW = Instant.parse("2026-10-07T15:00:00Z");
    private final MutableClock clock = new MutableClock(NOW);

    private HealthCheck.Result check(DataFreshness.Snapshot snapshot) {
        return new FreshnessHealthCheck(() -> snapshot, clock, new FreshnessSettings()).execute();
    }

    private static DataFreshness.Snapshot fresh() {
        return new DataFreshness.Snapshot(61, NOW.minus(Duration.ofHours(20)), 1891,
                Map.of("USD", LocalDate.parse("2026-10-06"), "EUR", LocalDate.parse("2026-10-06")));
    }

    @Test
    void healthy_when_everything_is_present_and_recent() {
        HealthCheck.Result result = check(fresh());
        assertThat(result.isHealthy()).as(result.getMessage()).isTrue();
    }

    @Test
    void a_registry_never_loaded_is_unhealthy() {
        DataFreshness.Snapshot s = fresh();
        HealthCheck.Result result = check(new DataFreshness.Snapshot(0, null, s.ubigeoCount(), s.latestRates()));
        assertThat(result.isHealthy()).isFalse();
        assertThat(result.getMessage()).contains("never been loaded");
    }

    @Test
    void a_registry_older_than_three_days_is_unhealthy() {
        clock.advance(Duration.ofDays(3));
        assertThat(check(fresh()).isHealthy()).isFalse();
        clock.set(NOW.plus(Duration.ofDays(2)));
        assertThat(check(fresh()).isHealthy()).isTrue();
    }

    @Test
    void a_missing_or_stale_rate_is_unhealthy() {
        DataFreshness.Snapshot s = fresh();
        HealthCheck.Result noEur = check(new DataFreshness.Snapshot(s.registryRows(), s.registryLoadedAt(),
                s.ubigeoCount(), Map.of("USD", LocalDate.parse("2026-10-06"))));
        assertThat(noEur.isHealthy()).isFalse();
        assertThat(noEur.getMessage()).contains("no EUR exchange rate");

        HealthCheck.Result stale = check(new DataFreshness.Snapshot(s.registryRows(), s.registryLoadedAt(),
                s.ubigeoCount(), Map.of("USD", LocalDate.parse("2026-09-20"), "EUR", LocalDate.parse("2026-10-06"))));
        assertThat(stale.isHealthy()).isFalse();
        assertThat(stale.getMessage()).contains("USD exchange rate is from 2026-09-20");
    }

    @Test
    void an_empty_catalogue_is_unhealthy() {
        DataFreshness.Snapshot s = fresh();
        HealthCheck.Result result = check(new DataFreshness.Snapshot(s.registryRows(), s.registryLoadedAt(), 0,
                s.latestRates()));
        assertThat(result.isHealthy()).isFalse();
        assertThat(result.getMessage()).contains("ubigeo catalogue is empty");
    }
}
