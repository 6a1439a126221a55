package pe.quipu.core.ruc;

import java.util.List;

/**
 * Search by name over the registry (contract §10), as the schema holds it (changesets 016, 017 and 023):
 * {@link #COLUMN} is {@code razon_social} through the SQL function {@code quipu_search_name} (lower case, no accents,
 * Ñ as N, dots dropped, other punctuation one space), with a trigram index over it, and {@link #WORDS} counts the
 * names' words. Triggers keep both right for every writer but the padrón's publication, which sets
 * {@link #PUBLICATION} for its transaction and does that work itself, set-based: it stages the column already
 * normalised ({@link SearchNames}) and applies its change set's words with {@link #WORDS_CHANGE}; when it builds a new
 * table instead, it gives that table the same triggers and index before the swap.
 */
public final class RegistrySearch {

    /** The normalised name column. */
    public static final String COLUMN = "nombre_busqueda";

    /**
     * The trigram index on the table in service, in two halves by the RUC's tenth digit (changeset 035), each a
     * partial index named {@code INDEX + "_" + i} over the records of {@link #HALVES}{@code [i]}: PostgreSQL 17 builds
     * a GIN index on one core, and a new registry's two halves are built at once, one per connection. A search reads
     * both ({@link #candidates}). The tenth digit is the last of a DNI or of a company's serial number, so the halves
     * hold about as many records each.
     */
    public static final String INDEX = "ruc_registry_search";

    /** The predicates of the index's halves, in their order: every RUC is in exactly one. */
    public static final List<String> HALVES = List.of("substr(ruc, 10, 1) < '5'", "substr(ruc, 10, 1) >= '5'");

    /**
     * The table of the names' distinct words of {@link #MIN_WORD} or more characters (changeset 017), where search
     * finds the close spellings of a word; {@link #WORDS_INDEX} is its trigram index. Each word's
     * {@code occurrences} is how many times it occurs in the registry's names (changeset 023), and a word is there
     * exactly when that is above zero.
     */
    public static final String WORDS = "ruc_registry_words";
    public static final String WORDS_INDEX = "ruc_registry_words_trgm";

    /** Words shorter than this are not search words (they carry too few trigrams to be looked up). */
    public static final int MIN_WORD = 3;

    /**
     * Set to {@code on} for its transaction by a writer that keeps {@link #COLUMN} and {@link #WORDS} right itself
     * (the padrón's publication): the triggers of changesets 016 and 023 then step aside, so a publication of
     * millions of rows runs no trigger per row.
     */
    public static final String PUBLICATION = "quipu.registry_publication";

    /** Starts such a writer's transaction ({@link #PUBLICATION}, until the transaction ends). */
    public static final String PUBLICATION_STARTS = "set local " + PUBLICATION + " = 'on'";

    /**
     * The SQL function (changeset 023) that applies, in one statement, the words of the names that went (its first
     * argument, a {@code text[]}) and came (its second): {@code select quipu_registry_words_change(:gone, :come)}.
     */
    public static final String WORDS_CHANGE = "quipu_registry_words_change";

    private static final String UNLESS_PUBLISHING =
            "current_setting('" + PUBLICATION + "', true) is distinct from 'on'";

    private RegistrySearch() {
    }

    /**
     * The column's value in a new registry built from staged rows {@code staged}: the name the load normalised
     * while staging ({@link SearchNames}), or, where it left none, the database's normalisation of the name.
     */
    public static String valueOf(String staged) {
        return "coalesce(" + staged + "." + COLUMN + ", quipu_search_name(" + staged + ".razon_social))";
    }

    /**
     * Gives {@code table} the triggers that keep the column and the words right for every writer but a publication
     * (as changesets 016 and 023 gave {@code ruc_registry}).
     */
    public static List<String> triggersOn(String table) {
        return List.of("create trigger ruc_registry_search_name before insert or update of razon_social, " + COLUMN
                        + " on " + table + " for each row when (" + UNLESS_PUBLISHING + ")"
                        + " execute function quipu_registry_search_name()",
                "create trigger ruc_registry_words_inserted after insert on " + table
                        + " referencing new table as registry_inserted for each statement when (" + UNLESS_PUBLISHING
                        + ") execute function quipu_registry_words_inserted()",
                "create trigger ruc_registry_words_deleted after delete on " + table
                        + " referencing old table as registry_deleted for each statement when (" + UNLESS_PUBLISHING
                        + ") execute function quipu_registry_words_deleted()",
                "create trigger ruc_registry_words_renamed after update of razon_social, " + COLUMN + " on " + table
                        + " for each row when (old." + COLUMN + " is distinct from new." + COLUMN + " and "
                        + UNLESS_PUBLISHING + ") execute function quipu_registry_words_renamed()",
                "create trigger ruc_registry_words_truncated after truncate on " + table
                        + " for each statement execute function quipu_registry_words_truncated()");
    }

    /**
     * Creates {@code wordsTable}, the words of {@code registry}'s names with how many times each occurs, with its
     * primary key and its trigram index {@code wordsIndex} (as changesets 017 and 023 made {@link #WORDS}).
     */
    public static List<String> wordsOf(String registry, String wordsTable, String wordsIndex) {
        return List.of("create table " + wordsTable + " as select w as word, count(*) as occurrences from " + registry
                        + ", unnest(string_to_array(" + COLUMN + ", ' ')) w where length(w) >= " + MIN_WORD
                        + " group by w",
                "alter table " + wordsTable + " alter column occurrences set not null, add primary key (word)",
                "create index " + wordsIndex + " on " + wordsTable + " using gin (word gin_trgm_ops)");
    }

    /** Creates half {@code half} of the trigram index, named {@code name + "_" + half}, on {@code table}. */
    public static String halfIndexOn(String table, String name, int half) {
        return "create index " + name + "_" + half + " on " + table + " using gin (" + COLUMN + " gin_trgm_ops)"
                + " where " + HALVES.get(half);
    }

    /**
     * At most {@code limit} of the registry's rows that satisfy {@code where}, with {@code columns}: each half's rows
     * read through its own part of the index, the first half's first, so that a search that finds enough there never
     * reads the second (the statement stops at {@code limit}). {@code where} may name the registry's columns only.
     */
    public static String candidates(String columns, String where, int limit) {
        return "select * from (" + String.join(" union all ", HALVES.stream().map(half ->
                "(select " + columns + " from ruc_registry where " + half + " and (" + where + ") limit " + limit + ")")
                .toList()) + ") halves limit " + limit;
    }
}
