package pe.quipu.etl.run;

import java.util.Locale;

/**
 * The rule every load that can take records out of service applies before it writes anything (contract §11): a file
 * that would remove more than {@code changes.maxRemovedShare} of the data in service is refused as a broken file,
 * like a truncated one, and nothing changes. SUNAT's files move by well under 1 % a day; a file that drops a twentieth
 * of the registry, or of a list, is far likelier an export gone wrong than a real day.
 */
public final class RemovedShare {

    private RemovedShare() {
    }

    /**
     * @param removed   what the file would take out of service
     * @param inService what is in service now (nothing is refused when it is empty)
     * @param what      the data in service, plural, as the reason names it: "records of the registry"
     * @throws IllegalStateException when {@code removed / inService} is over {@code maxShare}
     */
    public static void refuseAbove(long removed, long inService, double maxShare, String what) {
        if (inService == 0 || removed <= maxShare * inService) {
            return;
        }
        throw new IllegalStateException(String.format(Locale.ROOT,
                "the file would remove %d of the %d %s in service (%.2f %%), over the %.2f %% a load may remove"
                        + " (changes.maxRemovedShare): is it a broken file? The data in service is unchanged; to"
                        + " apply it on purpose, run with QUIPU_CHANGES_MAX_REMOVED_SHARE=1",
                removed, inService, what, 100.0 * removed / inService, 100.0 * maxShare));
    }
}
