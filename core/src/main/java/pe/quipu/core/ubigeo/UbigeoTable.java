package pe.quipu.core.ubigeo;

import org.jdbi.v3.core.Handle;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.customizer.BindMethods;
import org.jdbi.v3.sqlobject.statement.SqlBatch;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;
import pe.quipu.core.db.DatasetLoads;

import java.time.Instant;
import java.util.List;

/**
 * The {@code ubigeos} table. Whoever writes it (the API's first-start seeding, the ETL's ubigeo job) holds
 * {@link #LOCK_KEY} for the transaction, and a replacement tells every API instance to reload its in-memory
 * copy through {@link #CHANGED_CHANNEL}.
 */
public final class UbigeoTable {

    /** The transaction-level advisory lock taken by every writer of the table. */
    public static final long LOCK_KEY = 0x7175_6970_7562_6967L; // "quipubig"
    /** NOTIFY channel: the catalogue in the table changed. */
    public static final String CHANGED_CHANNEL = "quipu_ubigeos";

    private UbigeoTable() {
    }

    /**
     * Replaces the whole catalogue in the caller's transaction: readers see the old catalogue until it commits,
     * then the new one; the notification is delivered at commit.
     */
    public static void replace(Handle handle, List<Ubigeo> districts, Instant now) {
        UbigeoRows rows = handle.attach(UbigeoRows.class);
        rows.lock(LOCK_KEY);
        rows.deleteAll();
        rows.insert(districts);
        DatasetLoads.record(handle, "ubigeo", districts.size(), now);
        rows.announceChange();
    }

    /**
     * Fills the table with {@code districts} if it is empty, in the caller's transaction; returns the rows inserted.
     * A table that holds anything is left alone: once loaded, the ETL owns its content.
     */
    public static int seedIfEmpty(Handle handle, List<Ubigeo> districts) {
        UbigeoRows rows = handle.attach(UbigeoRows.class);
        rows.lock(LOCK_KEY);
        if (!rows.isEmpty()) {
            return 0;
        }
        int inserted = 0;
        for (int count : rows.insert(districts)) {
            inserted += Math.max(count, 0);
        }
        return inserted;
    }

    /** The whole catalogue, by code: one statement, so one consistent snapshot. */
    public static List<Ubigeo> all(Handle handle) {
        return handle.attach(UbigeoRows.class).all();
    }

    interface UbigeoRows {
        @SqlQuery("select code, departamento, provincia, distrito from ubigeos order by code")
        @RegisterConstructorMapper(Ubigeo.class)
        List<Ubigeo> all();

        /** Held until the transaction ends, so that instances starting together and the ETL never interleave. */
        @SqlQuery("select 1 from (select pg_advisory_xact_lock(:key)) locked")
        int lock(long key);

        @SqlQuery("select not exists (select 1 from ubigeos)")
        boolean isEmpty();

        @SqlUpdate("delete from ubigeos")
        void deleteAll();

        /** "on conflict do nothing": harmless under the lock, and safe against a writer that skips it. */
        @SqlBatch("""
                insert into ubigeos (code, departamento, provincia, distrito)
                values (:code, :departamento, :provincia, :distrito) on conflict (code) do nothing""")
        int[] insert(@BindMethods List<Ubigeo> districts);

        @SqlUpdate("notify " + CHANGED_CHANNEL)
        void announceChange();
    }
}
