package pe.quipu.etl.run;

import java.util.List;
import java.util.Locale;

/** The rule every load applies to its rejected lines: more than {@code etl.maxRejectedShare} fails the run. */
public final class RejectedShare {

    private RejectedShare() {
    }

    /**
     * @param sample the first rejected lines, quoted in the failure
     * @throws IllegalStateException when {@code rejected / read} is over {@code maxShare}
     */
    public static void refuseAbove(long read, long rejected, double maxShare, List<String> sample) {
        if (read == 0 || (double) rejected / read <= maxShare) {
            return;
        }
        throw new IllegalStateException(String.format(Locale.ROOT,
                "%d of %d lines rejected (%.3f %%), over the %.3f %% allowed (etl.maxRejectedShare); the data in"
                        + " service is unchanged%s", rejected, read, 100.0 * rejected / read, 100.0 * maxShare,
                sample.isEmpty() ? "" : "; first: " + String.join("; ", sample)));
    }
}
