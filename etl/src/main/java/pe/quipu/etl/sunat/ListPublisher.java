package pe.quipu.etl.sunat;

import org.jdbi.v3.core.Jdbi;
import pe.quipu.core.db.DatasetLoads;

import java.time.Instant;

/**
 * Puts a staged list in service in one transaction: the list's rows in {@code sunat_padrones} are replaced and the
 * load recorded, so readers see the old list until the commit and never a part of the new one. The table's
 * trigger (changeset 015) tells every API instance at commit. A list is tens of thousands of rows at most, so a
 * delete and an insert cost less than building and swapping a table, and leave the other lists alone.
 */
final class ListPublisher {

    private final Jdbi jdbi;

    ListPublisher(Jdbi jdbi) {
        this.jdbi = jdbi;
    }

    /** @return the rows of the list now in service */
    long publish(SunatFile file, Instant now) {
        return jdbi.inTransaction(h -> {
            h.createUpdate("delete from sunat_padrones where padron = :padron")
                    .bind("padron", file.padron())
                    .execute();
            // The last line of a RUC met twice wins, as in the padrón.
            long rows = h.createUpdate("insert into sunat_padrones (ruc, padron, desde, resolucion)"
                            + " select distinct on (ruc) ruc, :padron, desde, resolucion from " + file.stage()
                            + " order by ruc, line desc")
                    .bind("padron", file.padron())
                    .execute();
            DatasetLoads.record(h, file.jobName(), rows, now);
            h.execute("drop table " + file.stage());
            return rows;
        });
    }
}
