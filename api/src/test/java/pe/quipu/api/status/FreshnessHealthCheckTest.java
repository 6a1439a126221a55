package pe.quipu.api.status;

import com.codahale.metrics.health.HealthCheck;
import com.fasterxml.jackson.databind.ObjectMapper;
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

    private static final LocalDate YESTERDAY = LocalDate.parse("2026-10-06");

    private static DataFreshness.Snapshot fresh() {
        return withRates(Map.of("bcrp.USD", YESTERDAY, "bcrp.EUR", YESTERDAY, "sbs.USD", YESTERDAY,
                "sunat.USD", YESTERDAY));
    }

    private static DataFreshness.Snapshot withRates(Map<String, LocalDate> rates) {
        return new DataFreshness.Snapshot(61, NOW.minus(Duration.ofHours(20)), 1891, rates);
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
    void a_missing_or_stale_rate_of_any_source_is_unhealthy() {
        HealthCheck.Result noEur = check(withRates(Map.of("bcrp.USD", YESTERDAY, "sbs.USD", YESTERDAY,
                "sunat.USD", YESTERDAY)));
        assertThat(noEur.isHealthy()).isFalse();
        assertThat(noEur.getMessage()).contains("no BCRP EUR exchange rate");

        HealthCheck.Result noSunat = check(withRates(Map.of("bcrp.USD", YESTERDAY, "bcrp.EUR", YESTERDAY,
                "sbs.USD", YESTERDAY)));
        assertThat(noSunat.isHealthy()).isFalse();
        assertThat(noSunat.getMessage()).contains("no SUNAT USD exchange rate").doesNotContain("BCRP");

        HealthCheck.Result stale = check(withRates(Map.of("bcrp.USD", LocalDate.parse("2026-09-20"),
                "bcrp.EUR", YESTERDAY, "sbs.USD", YESTERDAY, "sunat.USD", YESTERDAY)));
        assertThat(stale.isHealthy()).isFalse();
        assertThat(stale.getMessage()).contains("the latest BCRP USD exchange rate is from 2026-09-20");

        HealthCheck.Result staleSbs = check(withRates(Map.of("bcrp.USD", YESTERDAY, "bcrp.EUR", YESTERDAY,
                "sbs.USD", LocalDate.parse("2026-09-20"), "sunat.USD", YESTERDAY)));
        assertThat(staleSbs.getMessage()).contains("the latest SBS USD exchange rate is from 2026-09-20");
    }

    @Test
    void each_source_may_have_a_limit_of_its_own() throws Exception {
        // SUNAT's latest is 4 days old: within the 7 days of every source, beyond a limit of 3 for SUNAT alone.
        DataFreshness.Snapshot sunatFourDaysOld = withRates(Map.of("bcrp.USD", YESTERDAY, "bcrp.EUR", YESTERDAY,
                "sbs.USD", YESTERDAY, "sunat.USD", LocalDate.parse("2026-10-03")));
        assertThat(check(sunatFourDaysOld).isHealthy()).isTrue();

        FreshnessSettings strict = new ObjectMapper().readValue(
                "{\"exchangeRateMaxAgeBySource\": {\"sunat\": \"3d\"}}", FreshnessSettings.class);
        HealthCheck.Result result = new FreshnessHealthCheck(() -> sunatFourDaysOld, clock, strict).execute();
        assertThat(result.isHealthy()).isFalse();
        assertThat(result.getMessage()).contains("the latest SUNAT USD exchange rate is from 2026-10-03");
        assertThat(strict.isEverySourceKnown()).isTrue();
        assertThat(new ObjectMapper().readValue(
                "{\"exchangeRateMaxAgeBySource\": {\"SUNAT\": \"3d\"}}", FreshnessSettings.class)
                .isEverySourceKnown()).isFalse();
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
