package pe.quipu.etl.sunat;

import org.jdbi.v3.core.Jdbi;
import pe.quipu.core.db.DatasetLoads;
import pe.quipu.core.ruc.SunatLists;
import pe.quipu.etl.run.Progress;
import pe.quipu.etl.run.ProgressLine;

import java.time.Instant;

/**
 * Builds the new premises table from the staging table and swaps it in, in one transaction, as the padrón's
 * registry is: readers keep the previous {@code locales_anexos} until the commit, and a run that fails or is killed
 * before it leaves that table untouched. The new table is made like the one in service (same columns, order and
 * types), so the API's prepared statements keep their shape across the swap; it gets the change trigger of
 * changeset 015, and the swap itself is announced.
 */
final class AnexosPublisher {

    static final String NEW = "locales_anexos_new";
    static final String OLD = "locales_anexos_old";

    private final Jdbi jdbi;
    private final Progress progress;

    /** @param progress told of the phases: {@code publish} (the new table filled), then {@code index} */
    AnexosPublisher(Jdbi jdbi, Progress progress) {
        this.jdbi = jdbi;
        this.progress = progress;
    }

    /** @return the premises now in service */
    long publish(Instant now) {
        String columns = String.join(", ", SunatFile.ANEXO_TABLE_COLUMNS);
        String stage = SunatFile.LOCALES_ANEXOS.stage();
        return jdbi.inTransaction(h -> {
            progress.enter(Progress.Phase.PUBLISH);
            h.execute("set local work_mem = '256MB'");
            h.execute("set local maintenance_work_mem = '512MB'");
            h.execute("create table " + NEW + " (like locales_anexos including defaults including constraints)");
            // Sorted by RUC, so that a RUC's premises sit together on disk and a lookup reads a page or two.
            long rows = h.execute("insert into " + NEW + " (" + columns + ") select " + columns + " from " + stage
                    + " order by ruc, line");
            progress.enter(Progress.Phase.INDEX);
            progress.items(rows, ProgressLine.NONE, "premises");
            h.execute("create index " + NEW + "_ruc on " + NEW + " (ruc)");
            // Statistics before readers see the table: the planner's first plans over it are informed ones.
            h.execute("analyze " + NEW);
            h.execute("alter table locales_anexos rename to " + OLD);
            h.execute("alter table " + NEW + " rename to locales_anexos");
            h.execute("drop table " + OLD);
            h.execute("alter index " + NEW + "_ruc rename to locales_anexos_ruc");
            h.execute("create trigger locales_anexos_changed after insert or update or delete or truncate"
                    + " on locales_anexos for each statement execute function quipu_notify_sunat_lists_change()");
            h.execute("select pg_notify('" + SunatLists.CHANNEL + "', '')");
            DatasetLoads.record(h, SunatFile.LOCALES_ANEXOS.jobName(), rows, now);
            h.execute("drop table " + stage);
            return rows;
        });
    }
}
