package pe.quipu.etl.sunat;

import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.customizer.Define;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import pe.quipu.core.db.DatasetLoads;
import pe.quipu.core.ruc.RegistryChanges;
import pe.quipu.core.watchlists.WatchedChanges;
import pe.quipu.etl.run.ChangeLog;
import pe.quipu.etl.run.Progress;
import pe.quipu.etl.run.ProgressLine;
import pe.quipu.etl.run.RemovedShare;

import java.time.Instant;

/**
 * Puts a staged list in service in one transaction: the list's rows in {@code sunat_padrones} are replaced, the RUCs
 * that joined or left it are recorded in the change log, and the load recorded, so readers see the old list until
 * the commit and never a part of the new one. The table's trigger (changeset 015) tells every API instance at commit.
 * A list is tens of thousands of rows at most, so a delete and an insert cost less than building and swapping a
 * table, and leave the other lists alone.
 *
 * <p>The change log gets one {@code padrones} row per RUC that joined or left the list, {@code {joined: [name],
 * left: []}} or {@code {joined: [], left: [name]}} (the list's name as answers give it), at the publication's time; the
 * RUC's plain record, its {@code actualizado} and its ETag stay as they were (contract §11). A change of a RUC's
 * {@code desde} or {@code resolucion} on a list it stays on is not a join or a leave and is not recorded. The list's
 * first load (nothing of it in service) records nothing: the log of the list starts from it. A file that would take
 * more than {@code changes.maxRemovedShare} of the list's RUCs off it is refused before anything is written.
 */
final class ListPublisher {

    private static final Logger LOG = LoggerFactory.getLogger(ListPublisher.class);

    private final Jdbi jdbi;
    private final double maxRemovedShare;
    private final Progress progress;

    /** @param progress told of the phases: {@code compare} (who joins and leaves), then {@code publish} */
    ListPublisher(Jdbi jdbi, double maxRemovedShare, Progress progress) {
        this.jdbi = jdbi;
        this.maxRemovedShare = maxRemovedShare;
        this.progress = progress;
    }

    /** @return the rows of the list now in service */
    long publish(SunatFile file, Instant now, long runId) {
        return jdbi.inTransaction(h -> {
            ListRows rows = h.attach(ListRows.class);
            progress.enter(Progress.Phase.COMPARE);
            ListRows.Moves moves = rows.moves(file.stage(), file.padron());
            RemovedShare.refuseAbove(moves.left(), moves.inService(), maxRemovedShare,
                    "RUCs of the list " + file.padron());
            progress.enter(Progress.Phase.PUBLISH);
            progress.items(moves.joined() + moves.left(), ProgressLine.NONE, "RUCs joining or leaving");
            long logged = moves.inService() == 0 ? 0 : rows.logMoves(file.stage(), file.padron(), runId, now);
            if (moves.inService() > 0 && rows.restated(file.stage(), file.padron()) == 0) {
                // Every RUC whose answer this changes joined or left, and is in the log under runId: instances drop
                // only those answers. A new desde or resolucion of a RUC that stays is not logged: drop everything.
                h.execute(RegistryChanges.loggedBy(runId));
            }
            long announced = logged == 0 ? 0 : WatchedChanges.announce(h, runId, now);
            rows.deleteList(file.padron());
            // The last line of a RUC met twice wins, as in the padrón.
            long inserted = rows.insertList(file.stage(), file.padron());
            DatasetLoads.record(h, file.jobName(), inserted, now);
            h.execute("drop table " + file.stage());
            LOG.info("{}: {} RUCs joined the list and {} left it ({})", file.jobName(), moves.joined(), moves.left(),
                    moves.inService() == 0 ? "its first load: nothing recorded in the change log"
                            : logged + " rows in the change log, " + announced + " ruc.changed events");
            return inserted;
        });
    }

    /** The list's SQL, in the publication's transaction; {@code stage} is the job's staging table. */
    interface ListRows {
        /** RUCs of the list in service, and those the file adds and drops. */
        record Moves(long inService, long joined, long left) {
        }

        @SqlQuery("select count(o.ruc) as in_service, count(*) filter (where o.ruc is null) as joined,"
                + " count(*) filter (where n.ruc is null) as left"
                + "  from (select distinct ruc from <stage>) n"
                + "  full join (select ruc from sunat_padrones where padron = :padron) o on o.ruc = n.ruc")
        @RegisterConstructorMapper(Moves.class)
        Moves moves(@Define("stage") String stage, String padron);

        @SqlUpdate("insert into " + ChangeLog.TABLE + " (ruc, kind, padrones, load_run_id, at)"
                + " select coalesce(n.ruc, o.ruc), 'padrones',"
                + "        jsonb_build_object("
                + "            'joined', case when o.ruc is null then jsonb_build_array(cast(:padron as text))"
                + "                      else cast('[]' as jsonb) end,"
                + "            'left', case when n.ruc is null then jsonb_build_array(cast(:padron as text))"
                + "                    else cast('[]' as jsonb) end),"
                + "        :runId, :now"
                + "   from (select distinct ruc from <stage>) n"
                + "   full join (select ruc from sunat_padrones where padron = :padron) o on o.ruc = n.ruc"
                + "  where n.ruc is null or o.ruc is null"
                + "  order by 1")
        long logMoves(@Define("stage") String stage, String padron, long runId, Instant now);

        /** RUCs that stay on the list with another {@code desde} or {@code resolucion} (the last line wins). */
        @SqlQuery("select count(*) from (select distinct on (ruc) ruc, desde, resolucion from <stage>"
                + "   order by ruc, line desc) n"
                + "  join sunat_padrones o on o.ruc = n.ruc and o.padron = :padron"
                + " where (o.desde, o.resolucion) is distinct from (n.desde, n.resolucion)")
        long restated(@Define("stage") String stage, String padron);

        @SqlUpdate("delete from sunat_padrones where padron = :padron")
        void deleteList(String padron);

        @SqlUpdate("insert into sunat_padrones (ruc, padron, desde, resolucion)"
                + " select distinct on (ruc) ruc, :padron, desde, resolucion from <stage> order by ruc, line desc")
        long insertList(@Define("stage") String stage, String padron);
    }
}
