package pe.quipu.api.ruc;

import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

import java.time.Instant;
import java.util.List;

/**
 * The registry's change log, {@code ruc_changes} (changeset 022), as the API reads and prunes it; the ETL is the only
 * writer. Every read leaves out what is older than the retention's cut-off, whether or not the pruning has run.
 * The RUC is cast to the column's type so that the index on {@code (ruc, at desc, id desc)} serves it.
 */
interface ChangeLogRows {

    /** One row, its JSON members as their text. */
    record Row(long id, String ruc, String kind, String changes, String padrones, long loadRunId, Instant at) {
    }

    /** The newest {@code n} changes of {@code ruc} at or after {@code cutoff}. */
    @SqlQuery("""
            select id, ruc, kind, changes::text as changes, padrones::text as padrones, load_run_id, at
              from ruc_changes
             where ruc = cast(:ruc as char(11)) and at >= :cutoff
             order by at desc, id desc
             limit :n""")
    @RegisterConstructorMapper(Row.class)
    List<Row> newest(String ruc, Instant cutoff, int n);

    /** The next {@code n} changes of {@code ruc} after the keyset {@code (at, id)}, newest first. */
    @SqlQuery("""
            select id, ruc, kind, changes::text as changes, padrones::text as padrones, load_run_id, at
              from ruc_changes
             where ruc = cast(:ruc as char(11)) and at >= :cutoff and (at, id) < (:at, :id)
             order by at desc, id desc
             limit :n""")
    @RegisterConstructorMapper(Row.class)
    List<Row> after(String ruc, Instant cutoff, Instant at, long id, int n);

    /**
     * The RUCs a load's run changed, at most {@code n} rows of them (a RUC may come twice), by the index on
     * {@code load_run_id} (changeset 031).
     */
    @SqlQuery("select ruc from ruc_changes where load_run_id = :run limit :n")
    List<String> rucsOf(long run, int n);

    /** Whether the registry holds {@code ruc} or the log, within retention, has a change of it. */
    @SqlQuery("""
            select exists (select 1 from ruc_registry where ruc = cast(:ruc as char(11)))
                or exists (select 1 from ruc_changes where ruc = cast(:ruc as char(11)) and at >= :cutoff)""")
    boolean seen(String ruc, Instant cutoff);

    /**
     * Deletes up to {@code n} of the oldest rows before {@code cutoff}; returns how many went. Rows another instance
     * is deleting at the same time are skipped, not waited for. The rows are found by the {@code (at, id)} index and
     * deleted by their physical address, which the lock taken holds still until the statement ends: a third of the
     * time of deleting by {@code id}, which looks each one up again in the primary key.
     */
    @SqlUpdate("""
            delete from ruc_changes
             where ctid = any(array(select ctid from ruc_changes where at < :cutoff order by at, id limit :n
                                    for update skip locked))""")
    int prune(Instant cutoff, int n);
}
