package pe.quipu.core.ruc;

/**
 * How the API instances learn that the RUC registry changed: a NOTIFY on {@link #CHANNEL}, delivered at commit. A
 * statement-level trigger sends it for every write to {@code ruc_registry} (changeset 013); the padrón job, which
 * swaps in a new table, gives that table the same trigger and notifies for the swap.
 */
public final class RegistryChanges {

    /** The NOTIFY channel; the payload is empty: any change may touch any record. */
    public static final String CHANNEL = "quipu_registry";

    private RegistryChanges() {
    }

    /** Gives {@code table} the registry's change trigger (as changeset 013 gave {@code ruc_registry}). */
    public static String triggerOn(String table) {
        return "create trigger ruc_registry_changed after insert or update or delete or truncate on " + table
                + " for each statement execute function quipu_notify_registry_change()";
    }

    /** Tells every instance, at commit, that the registry changed. */
    public static final String ANNOUNCE = "select pg_notify('" + CHANNEL + "', '')";
}
