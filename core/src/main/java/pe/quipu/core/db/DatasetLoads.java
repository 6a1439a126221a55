package pe.quipu.core.db;

import org.jdbi.v3.core.Handle;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

import java.time.Instant;

/**
 * {@code dataset_loads}: what the last complete load of each dataset ("padron", "padron-extendido", "ubigeo")
 * put in service, read by {@code /v1/status} and the data-freshness health check. Recorded in the load's own
 * transaction.
 */
public final class DatasetLoads {

    private DatasetLoads() {
    }

    /** Records a load that counts no changes (its {@code added}, {@code changed} and {@code removed} are null). */
    public static void record(Handle handle, String dataset, long rows, Instant loadedAt) {
        handle.attach(LoadRows.class).record(dataset, rows, loadedAt, null, null, null);
    }

    /** Records a publication with what it changed: records added, changed (in their answers) and removed. */
    public static void recordChanges(Handle handle, String dataset, long rows, Instant loadedAt, long added,
                                     long changed, long removed) {
        handle.attach(LoadRows.class).record(dataset, rows, loadedAt, added, changed, removed);
    }

    /** Records the registry's current size as the padrón's load (small loads, such as the bundled sample). */
    public static void recordRegistry(Handle handle, Instant loadedAt) {
        LoadRows loads = handle.attach(LoadRows.class);
        loads.record("padron", loads.registryRows(), loadedAt, null, null, null);
    }

    interface LoadRows {
        @SqlUpdate("""
                insert into dataset_loads (dataset, rows, loaded_at, added, changed, removed)
                values (:dataset, :rows, :loadedAt, :added, :changed, :removed)
                on conflict (dataset) do update set rows = excluded.rows, loaded_at = excluded.loaded_at,
                    added = excluded.added, changed = excluded.changed, removed = excluded.removed""")
        void record(String dataset, long rows, Instant loadedAt, Long added, Long changed, Long removed);

        @SqlQuery("select count(*) from ruc_registry")
        long registryRows();
    }
}
