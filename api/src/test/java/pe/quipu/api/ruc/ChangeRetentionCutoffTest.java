package pe.quipu.api.ruc;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/** The change log's retention cut-off, the one instant both the history and the pruning go by. */
class ChangeRetentionCutoffTest {

    private static final Instant NOW = Instant.parse("2026-10-07T15:00:00Z");

    @Test
    void four_hundred_days_of_24_hours_back_whatever_the_calendar() {
        // 2025-09-02T15:00Z plus 400 days is 2026-10-07T15:00Z (2026 has no 29 February; Lima keeps no summer time).
        assertThat(ChangeRetention.cutoff(NOW, Duration.ofDays(400))).isEqualTo(Instant.parse("2025-09-02T15:00:00Z"));
        assertThat(ChangeRetention.cutoff(Instant.parse("2024-03-01T00:00:00Z"), Duration.ofDays(1)))
                .isEqualTo(Instant.parse("2024-02-29T00:00:00Z"));
    }

    @Test
    void a_retention_of_zero_cuts_at_now() {
        assertThat(ChangeRetention.cutoff(NOW, Duration.ZERO)).isEqualTo(NOW);
    }

    @Test
    void a_retention_reaching_before_the_epoch_cuts_at_the_epoch() {
        assertThat(ChangeRetention.cutoff(NOW, Duration.ofDays(365L * 100_000))).isEqualTo(Instant.EPOCH);
        assertThat(ChangeRetention.cutoff(NOW, Duration.between(Instant.EPOCH, NOW))).isEqualTo(Instant.EPOCH);
        assertThat(ChangeRetention.cutoff(NOW, Duration.between(Instant.EPOCH, NOW).minusNanos(1000)))
                .isEqualTo(Instant.EPOCH.plusNanos(1000));
    }
}
