package pe.quipu.api.domain;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.time.LocalDate;

import static org.assertj.core.api.Assertions.assertThat;

/** Quota months, paid periods and usage days are Lima's (UTC-5 all year), not UTC's. */
class LimaCalendarTest {

    @Test
    void a_month_starts_at_midnight_in_lima_which_is_five_in_the_morning_utc() {
        Instant lastUtcEveningOfOctober = Instant.parse("2026-11-01T04:59:59Z");
        assertThat(LimaCalendar.monthStart(lastUtcEveningOfOctober)).isEqualTo(Instant.parse("2026-10-01T05:00:00Z"));
        assertThat(LimaCalendar.nextMonthStart(lastUtcEveningOfOctober))
                .isEqualTo(Instant.parse("2026-11-01T05:00:00Z"));
        assertThat(LimaCalendar.monthStart(Instant.parse("2026-11-01T05:00:00Z")))
                .isEqualTo(Instant.parse("2026-11-01T05:00:00Z"));
    }

    @Test
    void the_year_rolls_over_in_december() {
        assertThat(LimaCalendar.nextMonthStart(Instant.parse("2026-12-31T23:00:00Z")))
                .isEqualTo(Instant.parse("2027-01-01T05:00:00Z"));
    }

    @Test
    void days_and_dates_are_limas() {
        Instant lateEvening = Instant.parse("2026-10-08T03:00:00Z");
        assertThat(LimaCalendar.date(lateEvening)).isEqualTo(LocalDate.parse("2026-10-07"));
        assertThat(LimaCalendar.dayStart(lateEvening)).isEqualTo(Instant.parse("2026-10-07T05:00:00Z"));
        assertThat(LimaCalendar.startOf(LocalDate.parse("2026-10-07"))).isEqualTo(Instant.parse("2026-10-07T05:00:00Z"));
    }

    @Test
    void remembered_periods_answer_as_the_functions_do_across_their_ends_and_back() {
        LimaCalendar.Periods periods = new LimaCalendar.Periods();
        Instant[] moments = {Instant.parse("2026-10-31T12:00:00Z"), Instant.parse("2026-11-01T04:59:59.999Z"),
                Instant.parse("2026-11-01T05:00:00Z"), Instant.parse("2026-10-15T00:00:00Z"),
                Instant.parse("2026-11-01T05:00:00Z"), Instant.parse("2027-02-28T23:59:59Z")};
        for (Instant now : moments) {
            assertThat(periods.monthStart(now)).as("month of %s", now).isEqualTo(LimaCalendar.monthStart(now));
            assertThat(periods.nextMonthStart(now)).as("next month of %s", now)
                    .isEqualTo(LimaCalendar.nextMonthStart(now));
            assertThat(periods.dayStart(now)).as("day of %s", now).isEqualTo(LimaCalendar.dayStart(now));
        }
    }
}
