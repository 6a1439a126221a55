package pe.quipu.core.ruc;

/**
 * How the API instances learn that the RUC registry changed: a NOTIFY on {@link #CHANNEL}, delivered at commit. A
 * statement-level trigger sends it for every write to {@code ruc_registry} (changeset 013); the padrón job, which
 * swaps in a new table, gives that table the same trigger and notifies for the swap.
 *
 * <p>The payload is empty, meaning any record may have changed, unless the writer said, for its transaction, that
 * every answer it changes is in the change log under its run ({@link #loggedBy}): the trigger then sends
 * {@code run:<id>} (changeset 031), and an instance drops the answers of that run's RUCs only. The triggers of
 * SUNAT's lists ({@link SunatLists#CHANNEL}) do the same.
 */
public final class RegistryChanges {

    /** The NOTIFY channel; the payload is empty (any record may have changed) or {@link #RUN} and a run's id. */
    public static final String CHANNEL = "quipu_registry";

    private RegistryChanges() {
    }

    /** Gives {@code table} the registry's change trigger (as changeset 013 gave {@code ruc_registry}). */
    public static String triggerOn(String table) {
        return "create trigger ruc_registry_changed after insert or update or delete or truncate on " + table
                + " for each statement execute function quipu_notify_registry_change()";
    }

    /** A payload's prefix: what changed is the change log's rows of this run ({@code run:<loadRunId>}). */
    public static final String RUN = "run:";

    /**
     * The transaction's setting (changeset 031) that makes the triggers of the registry and of SUNAT's lists notify
     * {@code run:<id>} instead of an empty payload.
     */
    public static final String LOGGED_RUN = "quipu.changes_logged_by_run";

    /**
     * Says, until the transaction ends, that every answer its writes change is recorded in the change log under
     * {@code runId}: the statement to run before those writes. A writer that cannot say so leaves it out, and every
     * instance drops all it keeps.
     */
    public static String loggedBy(long runId) {
        return "select set_config('" + LOGGED_RUN + "', '" + runId + "', true)";
    }

    /** The run a payload names, or -1 when it names none (any record may have changed). */
    public static long runOf(String payload) {
        if (payload == null || !payload.startsWith(RUN)) {
            return -1;
        }
        try {
            return Long.parseLong(payload, RUN.length(), payload.length(), 10);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** Tells every instance, at commit, that the registry changed. */
    public static final String ANNOUNCE = "select pg_notify('" + CHANNEL + "', '')";
}
