package pe.quipu.api.ubigeo;

import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.PreparedBatch;
import pe.quipu.core.ubigeo.Ubigeo;
import pe.quipu.core.ubigeo.UbigeoTable;

import java.util.List;

/**
 * Fills an empty {@code ubigeos} table with the bundled catalogue, so a first start needs no manual step
 * (contract §1). A table that holds anything is left alone: once loaded, the ETL owns its content.
 */
public final class UbigeoSeeder {

    /**
     * Transaction-scoped advisory lock taken around "check empty, then insert", so that instances starting
     * together (or a {@code ubigeo} ETL run, should it take the same lock) never interleave.
     */
    /** Shared with the ETL's ubigeo job, which replaces the table. */
    public static final long LOCK_KEY = UbigeoTable.LOCK_KEY;

    private final Jdbi jdbi;

    public UbigeoSeeder(Jdbi jdbi) {
        this.jdbi = jdbi;
    }

    /** Inserts {@code catalogue} in one transaction if the table is empty; returns the rows inserted. */
    public int seedIfEmpty(List<Ubigeo> catalogue) {
        return jdbi.inTransaction(handle -> {
            handle.createQuery("select 1 from (select pg_advisory_xact_lock(:key)) locked")
                    .bind("key", LOCK_KEY).mapTo(Integer.class).one();
            boolean empty = handle.createQuery("select not exists (select 1 from ubigeos)").mapTo(Boolean.class).one();
            if (!empty) {
                return 0;
            }
            // "on conflict do nothing" as well: harmless under the lock, and safe against a writer that skips it.
            PreparedBatch batch = handle.prepareBatch("insert into ubigeos (code, departamento, provincia, distrito) "
                    + "values (:code, :departamento, :provincia, :distrito) on conflict (code) do nothing");
            for (Ubigeo ubigeo : catalogue) {
                batch.bind("code", ubigeo.code())
                        .bind("departamento", ubigeo.departamento())
                        .bind("provincia", ubigeo.provincia())
                        .bind("distrito", ubigeo.distrito())
                        .add();
            }
            int inserted = 0;
            for (int count : batch.execute()) {
                inserted += Math.max(count, 0);
            }
            return inserted;
        });
    }
}
