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
import pe.quipu.core.watchlists.WatchedChanges;
import pe.quipu.etl.run.ChangeLog;
import pe.quipu.etl.run.Progress;
import pe.quipu.etl.run.ProgressLine;
import pe.quipu.etl.run.RemovedShare;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Puts the staged padrón in service, all in one transaction: readers keep the registry in service until the commit,
 * and a run that fails or is killed before it leaves that registry, its indexes and its words untouched.
 *
 * <ol>
 *   <li>Into an empty registry ({@link Publication#FIRST_LOAD}), a new table is built from the staging table and
 *   swapped in, and the change log records nothing: it starts from this load (contract §11).</li>
 *   <li>Otherwise the staged records are compared with the registry in service inside PostgreSQL, by RUC and content
 *   fingerprint: added, removed, changed ({@value #DIFF}). A file that would remove more than
 *   {@code changes.maxRemovedShare} of the registry is refused here, before anything is written.</li>
 *   <li>The change log gets one row per RUC added, removed, or changed in its answer ({@code razonSocial},
 *   {@code estado}, {@code condicion}, {@code ubigeo}, {@code direccion}: {@code {field: {from, to}}} for exactly
 *   those that differ), with the run's id and the publication's time, which is also the new {@code actualizado} of
 *   every record added or changed. A record whose published parts changed without changing its answer (an address
 *   part moved from one column to the next, composing the same {@code direccion}) gets its new parts but keeps its
 *   {@code actualizado}, its ETag and no log row.</li>
 *   <li>Then either the difference is applied to the registry in service ({@link Publication#DIFFERENCE}: deletes,
 *   updates, inserts; the names' words counted from the change set, set-based), or, when it is too large for that to
 *   pay ({@link Publication#REBUILD}), a new registry is built, indexed and swapped in as on a first load.</li>
 * </ol>
 *
 * <p>{@code tipo} and {@code ciiu} come from another file (the padron-extendido job): an update leaves them, a new
 * table carries them over. Search by name (changesets 016, 017, 023): a new table gets its normalised names from the
 * staging rows, the triggers, and, unless {@code search.enabled} is false, its trigram index and a new words table,
 * all before the swap. With search off the words in service are left as they are (search answers 503), and the next
 * load with search on rebuilds, since only a new table gets the index.
 */
final class RegistryPublisher {

    static final String NEW = "ruc_registry_new";
    static final String OLD = "ruc_registry_old";
    static final String NEW_SEARCH_INDEX = NEW + "_search";
    static final String NEW_WORDS = RegistrySearch.WORDS + "_new";
    /** The RUCs that differ between the file and the registry in service, and how. */
    static final String DIFF_KEYS = "ruc_registry_diff_keys";
    /** {@link #DIFF_KEYS} with the staged values of each added or changed record. */
    static final String DIFF = "ruc_registry_diff";
    /**
     * Room on each page of a new registry for a changed record's next version, so that a publication's update of a
     * column no index holds (estado, condición, the address) stays on its page and adds no index entry (HOT).
     */
    static final int FILLFACTOR = 90;
    private static final String NEW_WORDS_INDEX = NEW_WORDS + "_trgm";
    private static final String DATASET = "padron";
    private static final Logger LOG = LoggerFactory.getLogger(RegistryPublisher.class);

    /** The fields of a record's answer that the padrón publishes, as the change log names them. */
    static List<ChangeLog.Field> answerFields(String from, String to) {
        Function<String, String> parts = t -> t + ".tipo_via, " + t + ".nombre_via, " + t + ".numero, " + t
                + ".interior, " + t + ".departamento, " + t + ".manzana, " + t + ".lote, " + t + ".kilometro, " + t
                + ".codigo_zona, " + t + ".tipo_zona";
        return List.of(
                new ChangeLog.Field("razonSocial", from + ".razon_social", to + ".razon_social"),
                new ChangeLog.Field("estado", from + ".estado", to + ".estado"),
                new ChangeLog.Field("condicion", from + ".condicion", to + ".condicion"),
                new ChangeLog.Field("ubigeo", from + ".ubigeo", to + ".ubigeo"),
                new ChangeLog.Field("direccion", "quipu_direccion(" + parts.apply(from) + ")",
                        "quipu_direccion(" + parts.apply(to) + ")",
                        "(" + parts.apply(from) + ") is distinct from (" + parts.apply(to) + ")"));
    }

    /** Whether the answer of registry row {@code o} differs from that of row {@code s} with the same RUC. */
    private static final String ANSWER_DIFFERS = ChangeLog.differ(answerFields("o", "s"));

    /**
     * What a publication did.
     *
     * @param rows    records in service after it
     * @param added   records added
     * @param changed records whose answer changed
     * @param removed records removed
     */
    record Published(Publication how, long rows, long added, long changed, long removed) {
    }

    private final Jdbi jdbi;
    private final boolean searchIndex;
    private final double maxRemovedShare;
    private final Progress progress;

    /**
     * @param jdbi            whose handles have a connection of their own: the publication is a transaction of its own
     * @param searchIndex     whether a new registry gets the trigram index of search by name ({@code search.enabled})
     * @param maxRemovedShare the share of the registry a file may remove ({@code changes.maxRemovedShare})
     * @param progress        told of the phases: {@code compare} (not into an empty registry), {@code publish}, and
     *                        {@code index} for a new registry; each with the count it works on (PostgreSQL tells no
     *                        more while a statement runs)
     */
    RegistryPublisher(Jdbi jdbi, boolean searchIndex, double maxRemovedShare, Progress progress) {
        this.jdbi = jdbi;
        this.searchIndex = searchIndex;
        this.maxRemovedShare = maxRemovedShare;
        this.progress = progress;
    }

    /**
     * @param now    the publication's time, to the microsecond (as PostgreSQL keeps it): the change log's {@code at}
     *               and the new {@code actualizado} of what it adds or changes
     * @param runId  the run's id, the change log's {@code load_run_id}
     * @param staged           the file's records (one per RUC)
     * @param changedLinesOnly whether the staging table holds only the lines that are not the ones their records
     *                         were loaded from, with the records no line named in {@link PadronStager#GONE}
     *                         ({@link RegistryLines}), rather than every record
     */
    Published publish(Instant now, long runId, long staged, boolean changedLinesOnly) {
        return publish(now, runId, staged, changedLinesOnly ? Staging.CHANGED_LINES : Staging.EVERY_LINE);
    }

    /**
     * As {@link #publish(Instant, long, long, boolean)}, {@code staging} saying how the file was staged; when it went
     * straight into {@value #NEW} ({@link Staging#NEW_REGISTRY}, into an empty registry), {@code now} is the time
     * its records were given.
     */
    Published publish(Instant now, long runId, long staged, Staging staging) {
        boolean changedLinesOnly = staging == Staging.CHANGED_LINES;
        boolean empty = !jdbi.withHandle(h -> h.attach(PublishRows.class).registryHasRecords());
        if (staging == Staging.NEW_REGISTRY && !empty) {
            throw new IllegalStateException("the registry was written while this first load ran (another writer);"
                    + " the registry in service is unchanged: run the load again");
        }
        if (!changedLinesOnly && empty) {
            progress.enter(Progress.Phase.PUBLISH);
            progress.items(staged, ProgressLine.NONE, "records");
            long built = staging == Staging.NEW_REGISTRY ? staged : fillNew(now, false);
            indexNew(built);
            jdbi.useTransaction(handle -> {
                PublishRows rows = handle.attach(PublishRows.class);
                rows.prepare();
                swap(handle);
                DatasetLoads.record(handle, DATASET, built, now);
                rows.dropStage();
            });
            LOG.info("published into an empty registry: {} records, nothing recorded in the change log", built);
            return new Published(Publication.FIRST_LOAD, built, built, 0, 0);
        }
        // The comparison, and a difference's publication, in one transaction; a rebuild's new table is built and
        // indexed outside it, and its change log written in the transaction that swaps it in.
        Compared compared = jdbi.inTransaction(handle -> {
            PublishRows rows = handle.attach(PublishRows.class);
            rows.prepare();
            progress.enter(Progress.Phase.COMPARE);
            progress.items(staged, ProgressLine.NONE, "records");
            long t = System.nanoTime();
            PublishRows.Difference difference = changedLinesOnly ? compareChangedLines(rows) : compare(rows);
            long inService = staged - difference.added() + difference.removed();
            LOG.info("compared the {} records of the file with the {} in service in {} ms: {} added, {} changed,"
                            + " {} removed; {} more only in their line's bytes", staged, inService, millisSince(t),
                    difference.added(), difference.changed(), difference.removed(), difference.lines());
            RemovedShare.refuseAbove(difference.removed(), inService, maxRemovedShare, "records of the registry");
            progress.enter(Progress.Phase.PUBLISH);
            progress.items(difference.total(), ProgressLine.NONE, "records differing");
            Publication how = Publication.choose(inService, difference.total() + difference.lines(),
                    searchIndex && !rows.searchIndexInService());
            if (how != Publication.DIFFERENCE) {
                LOG.info("the difference touches {} of {} records, over {} %: building a new registry instead",
                        difference.total() + difference.lines(), inService,
                        Math.round(100 * Publication.REBUILD_ABOVE));
                return new Compared(difference, null);
            }
            rows.probeByKey();
            long changed = logChanges(handle, difference, runId, now);
            t = System.nanoTime();
            // Every answer this changes is in the log under runId: instances drop those and keep the rest. A
            // rebuild's swap still tells them to drop everything.
            handle.execute(RegistryChanges.loggedBy(runId));
            apply(rows, difference, now);
            LOG.info("applied the difference to the registry in service in {} ms", millisSince(t));
            DatasetLoads.recordChanges(handle, DATASET, staged, now, difference.added(), changed,
                    difference.removed());
            rows.dropStage();
            return new Compared(difference, new Published(how, staged, difference.added(), changed,
                    difference.removed()));
        });
        if (compared.published() != null) {
            return compared.published();
        }
        PublishRows.Difference difference = compared.difference();
        indexNew(fillNew(now, changedLinesOnly));
        return jdbi.inTransaction(handle -> {
            PublishRows rows = handle.attach(PublishRows.class);
            rows.prepare();
            long changed = logChanges(handle, difference, runId, now);
            swap(handle);
            DatasetLoads.recordChanges(handle, DATASET, staged, now, difference.added(), changed,
                    difference.removed());
            rows.dropStage();
            return new Published(Publication.REBUILD, staged, difference.added(), changed, difference.removed());
        });
    }

    /** How the padrón's records were staged for the publication. */
    enum Staging {
        /** Every record, in the staging table. */
        EVERY_LINE,
        /** The lines that are not the ones their records were loaded from, and the records no line named. */
        CHANGED_LINES,
        /** Every record, straight into {@value #NEW}, with its indexes still to build: a first load. */
        NEW_REGISTRY
    }

    /** What the comparison found; and, when it was applied at once, what its publication did. */
    private record Compared(PublishRows.Difference difference, Published published) {
    }

    /**
     * The change log's rows of {@code difference}, and the {@code ruc.changed} events of the watched RUCs among
     * them, against the registry in service; returns how many records changed in their answers.
     */
    private static long logChanges(Handle handle, PublishRows.Difference difference, long runId, Instant now) {
        long t = System.nanoTime();
        long logged = handle.attach(PublishRows.class).logChanges(ChangeLog.changes(answerFields("o", "d")), runId,
                now);
        long changed = logged - difference.added() - difference.removed();
        LOG.info("recorded {} changes in the change log in {} ms ({} records changed in their answers, {} only in"
                        + " their published parts)", logged, millisSince(t), changed, difference.changed() - changed);
        t = System.nanoTime();
        long announced = WatchedChanges.announce(handle, runId, now);
        LOG.info("wrote {} ruc.changed events for the watched RUCs among them in {} ms", announced, millisSince(t));
        return changed;
    }

    /**
     * The change set, in two steps: which RUCs differ, comparing only RUCs and fingerprints (a hash join over the
     * two tables' keys, which spills little when the registry outgrows memory), then the staged values of those.
     */
    private static PublishRows.Difference compare(PublishRows rows) {
        rows.scanInParallel();
        rows.createDiffKeys();
        rows.scanAlone();
        rows.analyze(DIFF_KEYS);
        rows.createDiff(RegistryColumns.each(c -> "s." + c, ", "), RegistrySearch.valueOf("s"));
        rows.analyze(DIFF);
        return rows.difference();
    }

    /**
     * The change set when only the lines that differ were staged ({@link RegistryLines}): each staged record added,
     * changed, or the same but for its line's bytes, by a probe of the registry's key; and the records no line named.
     */
    private static PublishRows.Difference compareChangedLines(PublishRows rows) {
        rows.analyze(PadronStager.STAGE);
        rows.createDiffKeysOfChangedLines();
        rows.analyze(DIFF_KEYS);
        rows.createDiff(RegistryColumns.each(c -> "s." + c, ", "), RegistrySearch.valueOf("s"));
        rows.analyze(DIFF);
        return rows.difference();
    }

    /**
     * The difference applied to the registry in service, one statement per kind; the triggers step aside
     * ({@link RegistrySearch#PUBLICATION}), so the words go first, in one statement from the names that go and come,
     * while the old names can still be read.
     */
    private static void apply(PublishRows rows, PublishRows.Difference difference, Instant now) {
        rows.changeWords();
        if (difference.removed() > 0) {
            rows.deleteRemoved();
        }
        if (difference.changed() > 0) {
            rows.updateChanged(RegistryColumns.each(c -> c + " = s." + c, ", "), ANSWER_DIFFERS, now);
        }
        if (difference.added() > 0) {
            rows.insertAdded(RegistryColumns.PUBLISHED, RegistryColumns.each(c -> "s." + c, ", "), now);
        }
        if (difference.lines() > 0) {
            rows.updateLines();
        }
    }

    /**
     * Builds {@value #NEW} from the staging table and the registry in service, committed but not in service, with
     * its indexes and words; with {@code changedLinesOnly}, the records in service whose line was not staged and that
     * the file did not drop come over as they are. The indexes are built on two connections at once, each in a
     * transaction of its own: the primary key's unique index and one half of the trigram index on one, the other half
     * and the words on the other ({@link RegistrySearch#HALVES}); PostgreSQL builds each on one core. A run killed
     * before the swap leaves these tables, which the next run drops.
     *
     * @return the new registry's records
     */
    private long fillNew(Instant now, boolean changedLinesOnly) {
        return jdbi.inTransaction(handle -> {
            PublishRows rows = handle.attach(PublishRows.class);
            rows.prepare();
            // Its columns follow the table in service, in its order and with its types and NOT NULLs, so the API's
            // prepared statements keep their result shape across the swap; a column this job does not know is
            // carried over from the old row.
            List<String> notNull = new ArrayList<>();
            List<String> select = new ArrayList<>();
            List<String> kept = new ArrayList<>();
            for (PublishRows.RegistryColumn column : rows.columnsInService()) {
                String value = switch (column.name()) {
                    // Unchanged, or changed only in parts the answer does not show: the old time, and its ETag.
                    case "actualizado" -> "case when o.ruc is null then :now"
                            + " when o.content_hash is not distinct from s.content_hash then o.actualizado"
                            + " when " + ANSWER_DIFFERS + " then :now else o.actualizado end";
                    case "ruc", "content_hash", "line_hash" -> "s." + column.name();
                    case RegistrySearch.COLUMN -> RegistrySearch.valueOf("s");
                    // The padrón's columns come from the file; the others (tipo, ciiu…) from the registry in service.
                    default -> RegistryColumns.LIST.contains(column.name()) ? "s." + column.name()
                            : "o." + column.name();
                };
                if (column.notNull()) {
                    notNull.add("alter column " + column.name() + " set not null");
                }
                select.add("cast(" + value + " as " + column.type() + ") as " + column.name());
                kept.add("o." + column.name());
            }
            String from = "from " + PadronStager.STAGE + " s left join ruc_registry o on o.ruc = s.ruc";
            if (changedLinesOnly) {
                from += " union all select " + String.join(", ", kept) + " from ruc_registry o"
                        + " where not exists (select 1 from " + PadronStager.STAGE + " s where s.ruc = o.ruc)"
                        + " and not exists (select 1 from " + PadronStager.GONE + " g where g.ruc = o.ruc)";
            }
            long t = System.nanoTime();
            // CREATE TABLE AS, unlike INSERT ... SELECT, writes in bulk and may read with parallel workers (four
            // times faster at 2 M rows); the NOT NULLs are then checked in one scan.
            long rowsBuilt = rows.createNewAs(String.join(", ", select), from, now);
            if (!notNull.isEmpty()) {
                rows.constrainNew(String.join(", ", notNull));
            }
            LOG.info("built the new registry in {} ms", millisSince(t));
            return rowsBuilt;
        });
    }

    /** {@link #fillNew}'s table, or the first load's, indexed; see {@link #fillNew}. */
    private void indexNew(long built) {
        progress.enter(Progress.Phase.INDEX);
        progress.items(built, ProgressLine.NONE, "records");
        long t = System.nanoTime();
        Thread other = Thread.ofPlatform().name("padron-index").start(() -> indexSecondHalf());
        try {
            jdbi.useTransaction(handle -> {
                PublishRows rows = handle.attach(PublishRows.class);
                rows.indexMemory();
                long k = System.nanoTime();
                rows.uniqueRucs();
                LOG.info("indexed the new registry's RUCs in {} ms", millisSince(k));
                if (searchIndex) {
                    k = System.nanoTime();
                    handle.execute(RegistrySearch.halfIndexOn(NEW, NEW_SEARCH_INDEX, 0));
                    LOG.info("built half 0 of the new registry's search index in {} ms", millisSince(k));
                }
            });
        } finally {
            joinQuietly(other);
        }
        if (secondHalfFailure != null) {
            throw secondHalfFailure;
        }
        LOG.info("indexed the new registry in {} ms", millisSince(t));
        if (!searchIndex) {
            LOG.info("search.enabled is false: the new registry has no search index");
        }
    }

    private volatile RuntimeException secondHalfFailure;

    /** The other connection's share of {@link #indexNew}'s indexes: the trigram index's second half, the words. */
    private void indexSecondHalf() {
        try {
            if (!searchIndex) {
                return;
            }
            jdbi.useTransaction(handle -> {
                handle.attach(PublishRows.class).indexMemory();
                long t = System.nanoTime();
                handle.execute(RegistrySearch.halfIndexOn(NEW, NEW_SEARCH_INDEX, 1));
                LOG.info("built half 1 of the new registry's search index in {} ms", millisSince(t));
                t = System.nanoTime();
                RegistrySearch.wordsOf(NEW, NEW_WORDS, NEW_WORDS_INDEX).forEach(handle::execute);
                LOG.info("listed the new registry's words for close spellings in {} ms", millisSince(t));
            });
        } catch (RuntimeException e) {
            secondHalfFailure = e;
        }
    }

    private static void joinQuietly(Thread thread) {
        boolean interrupted = false;
        while (true) {
            try {
                thread.join();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Creates {@value #NEW} shaped as the registry in service (its columns in their order, with their types, NOT NULLs
     * and defaults), so the API's prepared statements keep their result shape across the swap, with room on each
     * page ({@link #FILLFACTOR}).
     */
    static void createNew(Handle handle) {
        handle.execute("create table " + NEW + " (like ruc_registry including defaults) with (" + NEW_STORAGE + ")");
    }

    /**
     * A new registry's storage: room on each page for changed records' next versions, and no autovacuum until it is
     * in service, which would otherwise come by while its indexes are built (it is committed, and millions of rows
     * were just written) and take a processor from them; the swap turns it back on.
     */
    private static final String NEW_STORAGE = "fillfactor = " + FILLFACTOR + ", autovacuum_enabled = false";

    /**
     * Puts {@value #NEW} in service, in the caller's transaction: its unique index becomes its primary key, it gets
     * the registry's triggers and fresh statistics (a new table has none: the first searches and lookups would be
     * planned blind until autovacuum came by), and it takes the registry's name, its indexes and words theirs.
     * Readers wait for these few catalogue changes only, not for the build.
     */
    private void swap(Handle handle) {
        PublishRows rows = handle.attach(PublishRows.class);
        rows.primaryKeyOfNew();
        handle.execute("alter table " + NEW + " reset (autovacuum_enabled)");
        RegistrySearch.triggersOn(NEW).forEach(handle::execute);
        long t = System.nanoTime();
        handle.execute("analyze " + NEW);
        if (searchIndex) {
            handle.execute("analyze " + NEW_WORDS);
        }
        LOG.info("analyzed the new registry in {} ms", millisSince(t));
        rows.swap();
        for (int half = 0; half < RegistrySearch.HALVES.size(); half++) {
            if (searchIndex) {
                handle.execute("alter index " + NEW_SEARCH_INDEX + "_" + half + " rename to " + RegistrySearch.INDEX
                        + "_" + half);
            }
        }
        if (searchIndex) {
            handle.execute("drop table " + RegistrySearch.WORDS);
            handle.execute("alter table " + NEW_WORDS + " rename to " + RegistrySearch.WORDS);
            handle.execute("alter index " + NEW_WORDS + "_pkey rename to " + RegistrySearch.WORDS + "_pkey");
            handle.execute("alter index " + NEW_WORDS_INDEX + " rename to " + RegistrySearch.WORDS_INDEX);
        }
        // The table in service keeps telling the API instances of every change, and they learn of this one.
        handle.execute(RegistryChanges.triggerOn("ruc_registry"));
        handle.execute(RegistryChanges.ANNOUNCE);
    }

    private static long millisSince(long nanos) {
        return (System.nanoTime() - nanos) / 1_000_000;
    }

    /** The publication's SQL, in its transaction. */
    interface PublishRows {
        /**
         * The change set's size, by kind; {@code changed} counts every record whose published fields differ,
         * {@code lines} those whose line's bytes alone differ from the line they were loaded from (or that line is
         * unknown): their fingerprint is updated, nothing else.
         */
        record Difference(long added, long changed, long removed, long lines) {
            long total() {
                return added + changed + removed;
            }
        }

        /** A column of the registry in service. */
        record RegistryColumn(String name, String type, boolean notNull) {
        }

        // Room for the joins' hash tables and the primary key's sort, for this transaction only; the triggers step
        // aside (the publication keeps names and words right itself); and a server that loses this run's connection
        // (a killed ETL) stops its statement within a second instead of finishing it before it rolls back.
        @SqlScript("set local work_mem = '256MB'")
        @SqlScript("set local maintenance_work_mem = '512MB'")
        @SqlScript(RegistrySearch.PUBLICATION_STARTS)
        @SqlScript("set local client_connection_check_interval = '1s'")
        void prepare();

        /**
         * From here on every statement reads the registry in service for the change set's RUCs only (at most
         * {@link Publication#REBUILD_ABOVE} of it): one primary-key probe each. The planner, costing random reads as
         * it does, otherwise hashes the whole registry for every statement (the log, the words, the update), which
         * took 1-1.5 s each at 2 M rows for a change set of 20,000, against 0.2-0.7 s by probes, and grows with the
         * registry rather than with the change set.
         */
        @SqlScript("set local enable_hashjoin = off")
        @SqlScript("set local enable_mergejoin = off")
        void probeByKey();

        /**
         * The comparison reads both tables whole but keeps only the change set, which the planner cannot foresee: it
         * expects every row to pass the filter and to cross from the workers to the leader, and so plans it
         * serially. It keeps almost nothing, so workers cost only their start: a parallel hash join compared 2 M
         * records with 2 M in 1.5 s instead of 2.8 s on 2 cores. Only for that statement: the next one keeps every
         * column of the rows it reads, whose trip to the leader costs more than a second scan alone.
         */
        @SqlScript("set local parallel_setup_cost = 0")
        @SqlScript("set local parallel_tuple_cost = 0")
        void scanInParallel();

        @SqlScript("reset parallel_setup_cost")
        @SqlScript("reset parallel_tuple_cost")
        void scanAlone();

        @SqlQuery("select exists (select 1 from ruc_registry)")
        boolean registryHasRecords();

        @SqlQuery("select to_regclass('" + RegistrySearch.INDEX + "_0') is not null"
                + " and to_regclass('" + RegistrySearch.INDEX + "_1') is not null")
        boolean searchIndexInService();

        @SqlQuery("""
                select column_name as name, format_type(atttypid, atttypmod) as type, attnotnull as not_null
                  from information_schema.columns
                  join pg_attribute on attrelid = 'ruc_registry'::regclass and attname = column_name
                 where table_schema = current_schema() and table_name = 'ruc_registry'
                 order by ordinal_position""")
        @RegisterConstructorMapper(RegistryColumn.class)
        List<RegistryColumn> columnsInService();

        @SqlUpdate("create unlogged table " + DIFF_KEYS + " as"
                + " select coalesce(s.ruc, o.ruc) as ruc,"
                + "        case when o.ruc is null then 'added' when s.ruc is null then 'removed'"
                + "             when o.content_hash is distinct from s.content_hash then 'changed' else 'line' end"
                + "          as kind"
                + "   from (select ruc, content_hash, line_hash from " + PadronStager.STAGE + ") s"
                + "   full join (select ruc, content_hash, line_hash from ruc_registry) o on o.ruc = s.ruc"
                + "  where o.ruc is null or s.ruc is null or o.content_hash is distinct from s.content_hash"
                + "     or o.line_hash is distinct from s.line_hash")
        void createDiffKeys();

        @SqlUpdate("create unlogged table " + DIFF_KEYS + " as"
                + " select s.ruc,"
                + "        case when o.ruc is null then 'added'"
                + "             when o.content_hash is distinct from s.content_hash then 'changed' else 'line' end"
                + "          as kind"
                + "   from " + PadronStager.STAGE + " s left join ruc_registry o on o.ruc = s.ruc"
                + "  where o.ruc is null or o.content_hash is distinct from s.content_hash"
                + "     or o.line_hash is distinct from s.line_hash"
                + " union all select g.ruc, 'removed' from " + PadronStager.GONE + " g")
        void createDiffKeysOfChangedLines();

        @SqlUpdate("create unlogged table " + DIFF + " as"
                + " select k.ruc, k.kind, <published>, <name> as " + RegistrySearch.COLUMN + ", s.content_hash,"
                + "        s.line_hash"
                + "   from " + DIFF_KEYS + " k left join " + PadronStager.STAGE + " s on s.ruc = k.ruc")
        void createDiff(@Define("published") String published, @Define("name") String name);

        @SqlUpdate("analyze <table>")
        void analyze(@Define("table") String table);

        @SqlQuery("select count(*) filter (where kind = 'added') as added,"
                + " count(*) filter (where kind = 'changed') as changed,"
                + " count(*) filter (where kind = 'removed') as removed,"
                + " count(*) filter (where kind = 'line') as lines from " + DIFF)
        @RegisterConstructorMapper(Difference.class)
        Difference difference();

        /** One row per RUC added, removed or changed in its answer; a change only to published parts is not one. */
        @SqlUpdate("insert into " + ChangeLog.TABLE + " (ruc, kind, changes, load_run_id, at)"
                + " select ruc, kind, changes, :runId, :now from ("
                + "   select d.ruc, d.kind, case when d.kind = 'changed' then <changes> end as changes"
                + "     from " + DIFF + " d left join ruc_registry o on o.ruc = d.ruc and d.kind = 'changed') c"
                + "  where kind in ('added', 'removed') or changes is not null"
                + "  order by ruc")
        long logChanges(@Define("changes") String changes, long runId, Instant now);

        /** The words of the names that go (removed, renamed) and come (added, renamed), in one statement. */
        @SqlScript("select " + RegistrySearch.WORDS_CHANGE + "("
                + " array(select o." + RegistrySearch.COLUMN + " from " + DIFF + " d join ruc_registry o on o.ruc = d.ruc"
                + "        where d.kind = 'removed'"
                + "           or o." + RegistrySearch.COLUMN + " is distinct from d." + RegistrySearch.COLUMN + "),"
                + " array(select d." + RegistrySearch.COLUMN + " from " + DIFF + " d"
                + "         left join ruc_registry o on o.ruc = d.ruc"
                + "        where d.kind = 'added' or (d.kind = 'changed'"
                + "          and o." + RegistrySearch.COLUMN + " is distinct from d." + RegistrySearch.COLUMN + ")))")
        void changeWords();

        @SqlUpdate("delete from ruc_registry o using " + DIFF + " d where d.kind = 'removed' and o.ruc = d.ruc")
        void deleteRemoved();

        /** Changed in its answer: the publication's time; only in its published parts: the time it had. */
        @SqlUpdate("update ruc_registry o set <set>, content_hash = s.content_hash, line_hash = s.line_hash,"
                + " " + RegistrySearch.COLUMN + " = s." + RegistrySearch.COLUMN + ","
                + " actualizado = case when <differs> then :now else o.actualizado end"
                + "  from " + DIFF + " s where s.kind = 'changed' and o.ruc = s.ruc")
        void updateChanged(@Define("set") String set, @Define("differs") String differs, Instant now);

        @SqlUpdate("insert into ruc_registry (ruc, <columns>, content_hash, line_hash, " + RegistrySearch.COLUMN
                + ", actualizado)"
                + " select s.ruc, <values>, s.content_hash, s.line_hash, s." + RegistrySearch.COLUMN + ", :now"
                + "   from " + DIFF + " s where s.kind = 'added' order by s.ruc")
        void insertAdded(@Define("columns") String columns, @Define("values") String values, Instant now);

        /** Records the same in content whose line's bytes differ: the new line's fingerprint, nothing else. */
        @SqlUpdate("update ruc_registry o set line_hash = s.line_hash from " + DIFF + " s"
                + " where s.kind = 'line' and o.ruc = s.ruc")
        void updateLines();

        @SqlUpdate("create table " + NEW + " with (" + NEW_STORAGE + ") as select <select> <from>")
        long createNewAs(@Define("select") String select, @Define("from") String from, Instant now);

        @SqlUpdate("alter table " + NEW + " <constraints>")
        void constrainNew(@Define("constraints") String constraints);

        /**
         * Room for an index build's sort on each of the two connections that index a new registry at once: each
         * half of the trigram index holds half the names, so together they use what one build of the whole did.
         */
        @SqlScript("set local maintenance_work_mem = '256MB'")
        @SqlScript("set local client_connection_check_interval = '1s'")
        void indexMemory();

        /** The primary key's index, built beside the trigram index (ALTER TABLE would lock that build out). */
        @SqlScript("create unique index " + NEW + "_pkey on " + NEW + " (ruc)")
        void uniqueRucs();

        @SqlScript("alter table " + NEW + " add constraint " + NEW + "_pkey primary key using index " + NEW + "_pkey")
        void primaryKeyOfNew();

        @SqlScript("alter table ruc_registry rename to " + OLD)
        @SqlScript("alter table " + NEW + " rename to ruc_registry")
        @SqlScript("drop table " + OLD)
        @SqlScript("alter index " + NEW + "_pkey rename to ruc_registry_pkey")
        void swap();

        /** The run's work tables (a first load staged straight into the new registry, and has none). */
        @SqlScript("drop table if exists " + PadronStager.STAGE + ", " + PadronStager.GONE + ", " + DIFF_KEYS + ", "
                + DIFF)
        void dropStage();
    }
}
