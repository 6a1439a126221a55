package pe.quipu.api.fx;

import java.time.LocalDate;
import java.util.Optional;
import java.util.Set;

/**
 * What must still be known for a range of days, {@code from} to {@code to}, to be answered from the database: the
 * days that are neither a stored publication nor a recorded gap, split as {@link RateProof} splits them. The
 * settled ones must be asked of the source; the recent ones (yesterday and today in Lima) are proven by the source
 * having been asked about them within the capture interval. Worked out from the dates alone.
 *
 * @param settledInDoubt the first and last settled day without a publication or a gap, if any
 * @param recentInDoubt  the first and last recent day without a publication, if any
 */
record RangeProof(Optional<RateProof.Days> settledInDoubt, Optional<RateProof.Days> recentInDoubt) {

    /**
     * @param known the days of {@code [from, to]} with a publication or a recorded gap
     * @param today the date in Lima now
     */
    static RangeProof of(LocalDate from, LocalDate to, Set<LocalDate> known, LocalDate today) {
        LocalDate firstRecent = today.minusDays(1);
        LocalDate settledFirst = null;
        LocalDate settledLast = null;
        LocalDate recentFirst = null;
        LocalDate recentLast = null;
        for (LocalDate d = from; !d.isAfter(to); d = d.plusDays(1)) {
            if (known.contains(d)) {
                continue;
            }
            if (d.isBefore(firstRecent)) {
                settledFirst = settledFirst == null ? d : settledFirst;
                settledLast = d;
            } else {
                recentFirst = recentFirst == null ? d : recentFirst;
                recentLast = d;
            }
        }
        return new RangeProof(
                settledFirst == null ? Optional.empty() : Optional.of(new RateProof.Days(settledFirst, settledLast)),
                recentFirst == null ? Optional.empty() : Optional.of(new RateProof.Days(recentFirst, recentLast)));
    }

    /** Every day is a publication or a recorded gap: the answer holds until the rates change. */
    boolean complete() {
        return settledInDoubt.isEmpty() && recentInDoubt.isEmpty();
    }

    /** The days to ask the source about: from the first day in doubt to the last. */
    Optional<RateProof.Days> toFetch() {
        if (complete()) {
            return Optional.empty();
        }
        LocalDate first = settledInDoubt.map(RateProof.Days::first).orElseGet(() -> recentInDoubt.get().first());
        LocalDate last = recentInDoubt.map(RateProof.Days::last).orElseGet(() -> settledInDoubt.get().last());
        return Optional.of(new RateProof.Days(first, last));
    }
}
