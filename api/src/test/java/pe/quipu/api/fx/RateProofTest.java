package pe.quipu.api.fx;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import pe.quipu.core.fx.Fuente;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * When the exchange rates Quipu holds answer a date or a range without asking the source, and which days it asks the
 * source about: the date arithmetic of {@link ExchangeRateService} ({@link RateProof}, {@link RangeProof}), without a
 * database, a clock or HTTP. TipoCambioResourceTest and TipoCambioSourcesTest check the same rules end to end, by the
 * requests BCRP's and SUNAT's stand-ins receive.
 */
class RateProofTest {

    /** A Wednesday. */
    private static final LocalDate TODAY = LocalDate.parse("2024-08-14");

    private static LocalDate date(String text) {
        return LocalDate.parse(text);
    }

    private static RateProof.Days days(String first, String last) {
        return new RateProof.Days(date(first), date(last));
    }

    @Nested
    class WhatAProofNeeds {

        @Test
        void a_publication_of_the_very_date_proves_itself_for_good_even_today() {
            RateProof proof = new RateProof(TODAY, TODAY, TODAY);

            assertThat(proof.ofTheDate()).isTrue();
            assertThat(proof.settledInDoubt()).isEmpty();
            assertThat(proof.recentInDoubt()).isEmpty();
            assertThat(proof.forGood()).isTrue();
        }

        @Test
        void a_settled_date_needs_every_day_after_the_publication_a_recorded_gap_and_then_holds_for_good() {
            // A Sunday answered by Friday's publication.
            RateProof proof = new RateProof(date("2024-08-02"), date("2024-08-04"), TODAY);

            assertThat(proof.ofTheDate()).isFalse();
            assertThat(proof.settledInDoubt()).contains(days("2024-08-03", "2024-08-04"));
            assertThat(proof.settledInDoubt().orElseThrow().count()).isEqualTo(2);
            assertThat(proof.recentInDoubt()).isEmpty();
            assertThat(proof.forGood()).isTrue();
        }

        @Test
        void the_day_before_yesterday_is_settled() {
            RateProof proof = new RateProof(date("2024-08-09"), date("2024-08-12"), TODAY);

            assertThat(proof.settledInDoubt()).contains(days("2024-08-10", "2024-08-12"));
            assertThat(proof.recentInDoubt()).isEmpty();
            assertThat(proof.forGood()).isTrue();
        }

        @Test
        void yesterday_rests_on_a_recent_answer_from_bcrp_and_never_holds_for_good() {
            // Thursday just after midnight: Wednesday's rate may still be published.
            RateProof proof = new RateProof(date("2023-03-07"), date("2023-03-08"), date("2023-03-09"));

            assertThat(proof.settledInDoubt()).isEmpty();
            assertThat(proof.recentInDoubt()).contains(days("2023-03-08", "2023-03-08"));
            assertThat(proof.forGood()).isFalse();
        }

        @Test
        void today_without_its_publication_rests_on_a_recent_answer_from_bcrp() {
            RateProof proof = new RateProof(date("2024-08-13"), TODAY, TODAY);

            assertThat(proof.settledInDoubt()).isEmpty();
            assertThat(proof.recentInDoubt()).contains(days("2024-08-14", "2024-08-14"));
            assertThat(proof.forGood()).isFalse();
        }

        @Test
        void after_a_long_holiday_today_needs_the_settled_days_as_gaps_and_the_recent_ones_asked_lately() {
            RateProof proof = new RateProof(date("2024-08-07"), TODAY, TODAY);

            assertThat(proof.settledInDoubt()).contains(days("2024-08-08", "2024-08-12"));
            assertThat(proof.settledInDoubt().orElseThrow().count()).isEqualTo(5);
            assertThat(proof.recentInDoubt()).contains(days("2024-08-13", "2024-08-14"));
            assertThat(proof.forGood()).isFalse();
        }
    }

    @Nested
    class RecentAnswersFromBcrp {

        private static final Duration CAPTURE_INTERVAL = Duration.ofMinutes(30);
        /** 10:00 on Wednesday in Lima; BCRP said nothing was published from 1 August to that day. */
        private final Instant at = Instant.parse("2024-08-14T15:00:00Z");
        private final ExchangeRateService.RecentCheck check =
                new ExchangeRateService.RecentCheck(at, date("2024-08-01"), TODAY);

        @Test
        void an_answer_proves_the_days_it_covered_for_one_capture_interval() {
            RateProof.Days recent = days("2024-08-13", "2024-08-14");

            assertThat(check.proves(recent, TODAY, at, CAPTURE_INTERVAL)).isTrue();
            assertThat(check.proves(recent, TODAY, at.plus(Duration.ofMinutes(29)), CAPTURE_INTERVAL)).isTrue();
            assertThat(check.proves(recent, TODAY, at.plus(CAPTURE_INTERVAL), CAPTURE_INTERVAL)).isFalse();
            assertThat(check.proves(recent, TODAY, at.minusSeconds(1), CAPTURE_INTERVAL)).isFalse();
        }

        @Test
        void an_answer_proves_nothing_about_days_it_did_not_cover() {
            Instant now = at.plus(Duration.ofMinutes(1));

            assertThat(check.proves(days("2024-07-31", "2024-08-14"), TODAY, now, CAPTURE_INTERVAL)).isFalse();
            assertThat(check.proves(days("2024-08-14", "2024-08-15"), TODAY, now, CAPTURE_INTERVAL)).isFalse();
        }

        @Test
        void an_answer_from_before_midnight_in_lima_proves_nothing_the_next_day() {
            // 23:50 on Tuesday in Lima, asked again at 00:10 on Wednesday: within the interval, but another day.
            Instant lateEvening = Instant.parse("2024-08-14T04:50:00Z");
            ExchangeRateService.RecentCheck yesterdays =
                    new ExchangeRateService.RecentCheck(lateEvening, date("2024-08-01"), TODAY);

            assertThat(yesterdays.proves(days("2024-08-13", "2024-08-14"), TODAY,
                    lateEvening.plus(Duration.ofMinutes(20)), CAPTURE_INTERVAL)).isFalse();
        }
    }

    @Nested
    class EmptyAnswersFromBcrp {

        private final Instant at = Instant.parse("2024-08-14T15:00:00Z");
        private final ExchangeRateService.EmptyThrough empty =
                new ExchangeRateService.EmptyThrough(date("1998-06-15"), at, at.plus(Duration.ofHours(24)));

        @Test
        void an_empty_answer_covers_its_date_and_every_earlier_one_while_it_is_trusted() {
            assertThat(empty.answers(date("1998-06-15"), at)).isTrue();
            assertThat(empty.answers(date("1990-01-01"), at.plus(Duration.ofHours(23)))).isTrue();
            assertThat(empty.answers(date("1998-06-16"), at)).isFalse();
            assertThat(empty.answers(date("1998-06-15"), at.plus(Duration.ofHours(24)))).isFalse();
            assertThat(empty.answers(date("1998-06-15"), at.minusSeconds(1))).isFalse();
        }

        @Test
        void the_answer_reaching_later_is_remembered_while_it_is_trusted() {
            Instant later = at.plus(Duration.ofHours(1));
            ExchangeRateService.EmptyThrough earlier =
                    new ExchangeRateService.EmptyThrough(date("1997-01-01"), later, later.plus(Duration.ofHours(24)));
            ExchangeRateService.EmptyThrough same =
                    new ExchangeRateService.EmptyThrough(date("1998-06-15"), later, later.plus(Duration.ofHours(24)));

            assertThat(empty.outlasts(earlier, later)).isTrue();
            assertThat(empty.outlasts(same, later)).isFalse();
            assertThat(empty.outlasts(earlier, at.plus(Duration.ofHours(24)))).isFalse();
        }
    }

    @Nested
    class WhatIsAskedOfTheSource {

        @ParameterizedTest(name = "{0}, cached {1}, series from {2}: from {3}")
        @CsvSource(nullValues = "-", value = {
                // Nothing cached: the year before the date, so that an empty answer means nothing exists.
                "1998-06-15, -, -, 1997-06-11",
                // Something older cached: two weeks, enough for the longest run of non-business days.
                "2026-09-24, 2026-01-01, -, 2026-09-11",
                // What is cached within those two weeks is known: only the days after it.
                "2025-03-09, 2025-03-07, -, 2025-03-08",
                "2025-03-20, 2025-03-07, -, 2025-03-08",
                "2025-03-20, 2025-03-06, -, 2025-03-07",
                // Never before the series starts.
                "2024-01-05, -, 2023-06-01, 2023-06-01",
                "2024-01-05, -, 2022-01-01, 2023-01-01",
        })
        void from_which_day_bcrp_is_asked(LocalDate target, LocalDate cached, LocalDate seriesStart,
                                          LocalDate from) {
            for (Fuente viaBcrp : new Fuente[] {Fuente.BCRP, Fuente.SBS}) {
                assertThat(ExchangeRateService.fetchFrom(target, Optional.ofNullable(cached), seriesStart,
                        ExchangeRateService.firstLookupDays(viaBcrp))).as(viaBcrp.code()).isEqualTo(from);
            }
        }

        @ParameterizedTest(name = "{0}, cached {1}, series from {2}: from {3}")
        @CsvSource(nullValues = "-", value = {
                // Nothing cached: two weeks, as SUNAT's empty settled months are failures, not proof of nothing.
                "2026-09-24, -, 2000-01-01, 2026-09-11",
                "2026-09-24, 2026-01-01, 2000-01-01, 2026-09-11",
                "2026-09-24, 2026-09-18, 2000-01-01, 2026-09-19",
                "2000-01-05, -, 2000-01-01, 2000-01-01",
        })
        void from_which_day_sunat_is_asked(LocalDate target, LocalDate cached, LocalDate seriesStart, LocalDate from) {
            assertThat(ExchangeRateService.fetchFrom(target, Optional.ofNullable(cached), seriesStart,
                    ExchangeRateService.firstLookupDays(Fuente.SUNAT))).isEqualTo(from);
        }
    }

    /** Which days of a range the database cannot account for, and what is asked of the source for them. */
    @Nested
    class WhatARangeNeeds {

        private final LocalDate from = date("2024-07-29");

        /** Every day of [from, to] known (a publication or a gap) except those listed. */
        private Set<LocalDate> knownBut(LocalDate to, String... unknown) {
            Set<LocalDate> known = new HashSet<>();
            for (LocalDate d = from; !d.isAfter(to); d = d.plusDays(1)) {
                known.add(d);
            }
            for (String day : unknown) {
                known.remove(date(day));
            }
            return known;
        }

        @Test
        void every_day_known_is_complete_and_asks_nothing() {
            RangeProof proof = RangeProof.of(from, TODAY, knownBut(TODAY), TODAY);

            assertThat(proof.complete()).isTrue();
            assertThat(proof.toFetch()).isEmpty();
        }

        @Test
        void settled_days_in_doubt_are_asked_for_from_the_first_to_the_last() {
            RangeProof proof = RangeProof.of(from, date("2024-08-10"), knownBut(date("2024-08-10"), "2024-08-01",
                    "2024-08-03", "2024-08-07"), TODAY);

            assertThat(proof.settledInDoubt()).contains(days("2024-08-01", "2024-08-07"));
            assertThat(proof.recentInDoubt()).isEmpty();
            assertThat(proof.toFetch()).contains(days("2024-08-01", "2024-08-07"));
        }

        @Test
        void yesterday_and_today_are_recent_the_day_before_is_settled() {
            RangeProof proof = RangeProof.of(from, TODAY, knownBut(TODAY, "2024-08-12", "2024-08-13", "2024-08-14"),
                    TODAY);

            assertThat(proof.settledInDoubt()).contains(days("2024-08-12", "2024-08-12"));
            assertThat(proof.recentInDoubt()).contains(days("2024-08-13", "2024-08-14"));
            assertThat(proof.toFetch()).contains(days("2024-08-12", "2024-08-14"));
            assertThat(proof.complete()).isFalse();
        }

        @Test
        void only_today_in_doubt_is_a_recent_question() {
            RangeProof proof = RangeProof.of(from, TODAY, knownBut(TODAY, "2024-08-14"), TODAY);

            assertThat(proof.settledInDoubt()).isEmpty();
            assertThat(proof.recentInDoubt()).contains(days("2024-08-14", "2024-08-14"));
            assertThat(proof.toFetch()).contains(days("2024-08-14", "2024-08-14"));
        }
    }
}
