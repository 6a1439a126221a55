package pe.quipu.api.fx;

import java.time.LocalDate;
import java.time.temporal.ChronoUnit;
import java.util.Optional;

/**
 * What must be known for the latest publication on or before a date, dated {@code publication}, to be that date's
 * answer without asking BCRP (see {@link ExchangeRateService}), worked out from the dates alone: which settled days
 * must be recorded gaps, which recent days BCRP must have been asked about within the capture interval, and whether
 * the answer, once proven, holds for good (until the rates change).
 *
 * @param today the date in Lima now: yesterday and today are recent (BCRP may still publish them), the days before
 *              are settled
 */
record RateProof(LocalDate publication, LocalDate target, LocalDate today) {

    /** Consecutive dates, {@code first} to {@code last}, both included. */
    record Days(LocalDate first, LocalDate last) {
        long count() {
            return ChronoUnit.DAYS.between(first, last) + 1;
        }
    }

    /** A publication of the very date asked proves itself: nothing after it is in doubt. */
    boolean ofTheDate() {
        return publication.equals(target);
    }

    /** The settled days after the publication, up to the date, each of which must be a recorded gap. */
    Optional<Days> settledInDoubt() {
        LocalDate lastSettled = target.isBefore(firstRecent()) ? target : firstRecent().minusDays(1);
        return lastSettled.isAfter(publication) ? Optional.of(new Days(publication.plusDays(1), lastSettled))
                : Optional.empty();
    }

    /**
     * The recent days after the publication, up to the date, which BCRP must have been asked about within the
     * capture interval; none when the date is settled.
     */
    Optional<Days> recentInDoubt() {
        if (ofTheDate() || target.isBefore(firstRecent())) {
            return Optional.empty();
        }
        LocalDate first = publication.plusDays(1).isAfter(firstRecent()) ? publication.plusDays(1) : firstRecent();
        return Optional.of(new Days(first, target));
    }

    /**
     * Whether the answer, once proven, may be kept in memory until the rates change: a publication of that very day,
     * or a settled date, whose proof is recorded gaps alone. A recent date's proof also rests on how lately BCRP was
     * asked, which time undoes.
     */
    boolean forGood() {
        return ofTheDate() || target.isBefore(firstRecent());
    }

    private LocalDate firstRecent() {
        return today.minusDays(1);
    }
}
