package pe.quipu.etl.padron;

import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.customizer.Define;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlScript;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import pe.quipu.core.db.DatasetLoads;
import pe.quipu.core.ruc.RegistryChanges;
import pe.quipu.core.ruc.RegistryColumns;
import pe.quipu.core.ruc.RegistrySearch;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Builds the new registry from the staging table and puts it in service, all in one transaction: readers keep
 * the previous {@code ruc_registry} until the commit, and a run that fails or is killed before it leaves that
 * registry untouched (PostgreSQL rolls the new table back with the transaction).
 *
 * <p>Each staged row is joined to the registry in service by RUC: an unchanged fingerprint keeps the old
 * {@code actualizado} (so the ETag stays), anything else takes the run's time. {@code tipo} and {@code ciiu}
 * are carried over, since they come from another file (the padron-extendido job).
 *
 * <p>Search by name (changeset 016): the new table's normalised name is the one staged with each row, and
 * the table gets the trigger that keeps it right and, unless {@code search.enabled} is false, its trigram index and
 * a new table of its names' words (close spellings, changeset 017), all before the swap: readers never see a
 * registry without them. With search off, the words in service are left as they are (search answers 503).
 */
final class RegistryPublisher {

    static final String NEW = "ruc_registry_new";
    static final String OLD = "ruc_registry_old";
    static final String NEW_SEARCH_INDEX = NEW + "_search";
    static final String NEW_WORDS = RegistrySearch.WORDS + "_new";
    private static final String NEW_WORDS_INDEX = NEW_WORDS + "_trgm";
    private static final Logger LOG = LoggerFactory.getLogger(RegistryPublisher.class);

    /** What a publication did. */
    record Published(long rows) {
    }

    private final Jdbi jdbi;
    private final boolean searchIndex;

    /**
     * @param jdbi        whose handles have a connection of their own: the publication is a transaction of its own
     * @param searchIndex whether the new registry gets the trigram index of search by name ({@code search.enabled})
     */
    RegistryPublisher(Jdbi jdbi, boolean searchIndex) {
        this.jdbi = jdbi;
        this.searchIndex = searchIndex;
    }

    Published publish(Instant now) {
        return jdbi.inTransaction(handle -> {
            Published published = build(handle, now);
            swap(handle, published.rows(), now);
            return published;
        });
    }

    private Published build(Handle handle, Instant now) {
        PublishRows rows = handle.attach(PublishRows.class);
        // Room for the join's hash table and the primary key's sort, for this transaction only.
        rows.setWorkMem();
        // CREATE TABLE AS, unlike INSERT ... SELECT, may run the join with parallel workers. Its columns follow
        // the table in service, in its order and with its types, so the API's prepared statements keep their
        // result shape across the swap; a column this job does not know is carried over from the old row.
        List<String> select = new ArrayList<>();
        List<String> constraints = new ArrayList<>();
        for (PublishRows.RegistryColumn column : rows.columnsInService()) {
            String value = switch (column.name()) {
                case "actualizado" -> "case when o.content_hash = s.content_hash then o.actualizado else :now end";
                case "ruc", "content_hash" -> "s." + column.name();
                case RegistrySearch.COLUMN -> RegistrySearch.valueOf("s");
                // The padrón's columns come from the file; the others (tipo, ciiu…) from the registry in service.
                default -> RegistryColumns.LIST.contains(column.name()) ? "s." + column.name() : "o." + column.name();
            };
            select.add("cast(" + value + " as " + column.type() + ") as " + column.name());
            if (column.notNull() && !column.name().equals("ruc")) {
                constraints.add("alter column " + column.name() + " set not null");
            }
        }
        long built = rows.createNew(String.join(", ", select), now);
        long t = System.nanoTime();
        // One statement: the NOT NULL checks ride on the primary key's scan of the table.
        constraints.add("add constraint " + NEW + "_pkey primary key (ruc)");
        rows.constrainNew(String.join(", ", constraints));
        LOG.info("indexed the new registry in {} ms", (System.nanoTime() - t) / 1_000_000);
        handle.execute(RegistrySearch.triggerOn(NEW));
        if (searchIndex) {
            t = System.nanoTime();
            handle.execute(RegistrySearch.indexOn(NEW, NEW_SEARCH_INDEX));
            LOG.info("built the search index of the new registry in {} ms", (System.nanoTime() - t) / 1_000_000);
            t = System.nanoTime();
            RegistrySearch.wordsOf(NEW, NEW_WORDS, NEW_WORDS_INDEX).forEach(handle::execute);
            LOG.info("listed the new registry's words for close spellings in {} ms",
                    (System.nanoTime() - t) / 1_000_000);
        } else {
            LOG.info("search.enabled is false: the new registry has no search index");
        }
        // Statistics before the swap (CREATE TABLE AS gathers none): without them the first searches and lookups
        // after a load are planned blind until autovacuum analyzes the table, which a 2 M-row bench saw a minute
        // later. ANALYZE reads a fixed sample (30,000 rows), about 0.25 s at 2 M rows.
        t = System.nanoTime();
        handle.execute("analyze " + NEW);
        if (searchIndex) {
            handle.execute("analyze " + NEW_WORDS);
        }
        LOG.info("analyzed the new registry in {} ms", (System.nanoTime() - t) / 1_000_000);
        return new Published(built);
    }

    private void swap(Handle handle, long rows, Instant now) {
        // Readers wait for these few catalogue changes only, not for the build above.
        handle.attach(PublishRows.class).swap();
        if (searchIndex) {
            handle.execute("alter index " + NEW_SEARCH_INDEX + " rename to " + RegistrySearch.INDEX);
            handle.execute("drop table " + RegistrySearch.WORDS);
            handle.execute("alter table " + NEW_WORDS + " rename to " + RegistrySearch.WORDS);
            handle.execute("alter index " + NEW_WORDS + "_pkey rename to " + RegistrySearch.WORDS + "_pkey");
            handle.execute("alter index " + NEW_WORDS_INDEX + " rename to " + RegistrySearch.WORDS_INDEX);
        }
        // The table in service keeps telling the API instances of every change, and they learn of this one.
        handle.execute(RegistryChanges.triggerOn("ruc_registry"));
        handle.execute(RegistryChanges.ANNOUNCE);
        DatasetLoads.record(handle, "padron", rows, now);
    }

    /** The publication's SQL, in its transaction. */
    interface PublishRows {
        /** A column of the registry in service. */
        record RegistryColumn(String name, String type, boolean notNull) {
        }

        @SqlScript("set local work_mem = '256MB'")
        @SqlScript("set local maintenance_work_mem = '512MB'")
        void setWorkMem();

        @SqlQuery("""
                select column_name as name, format_type(atttypid, atttypmod) as type, attnotnull as not_null
                  from information_schema.columns
                  join pg_attribute on attrelid = 'ruc_registry'::regclass and attname = column_name
                 where table_schema = current_schema() and table_name = 'ruc_registry'
                 order by ordinal_position""")
        @RegisterConstructorMapper(RegistryColumn.class)
        List<RegistryColumn> columnsInService();

        @SqlUpdate("create table " + NEW + " as select <select> from " + PadronStager.STAGE
                + " s left join ruc_registry o on o.ruc = s.ruc")
        long createNew(@Define("select") String select, Instant now);

        @SqlUpdate("alter table " + NEW + " <constraints>")
        void constrainNew(@Define("constraints") String constraints);

        @SqlScript("alter table ruc_registry rename to " + OLD)
        @SqlScript("alter table " + NEW + " rename to ruc_registry")
        @SqlScript("drop table " + OLD)
        @SqlScript("alter index " + NEW + "_pkey rename to ruc_registry_pkey")
        @SqlScript("drop table " + PadronStager.STAGE)
        void swap();
    }
}
