package pe.quipu.core.ruc;

import java.util.List;

/**
 * Search by name over the registry (contract §10), as the schema holds it (changeset 016): {@link #COLUMN} is
 * {@code razon_social} through the SQL function {@code quipu_search_name} (lower case, no accents, Ñ as N, dots
 * dropped, other punctuation one space), kept right by a row trigger, with a trigram index over it. The padrón job,
 * which builds a new table and swaps it in, stages the column already normalised ({@link SearchNames}) and gives the
 * new table the same trigger and index before the swap.
 */
public final class RegistrySearch {

    /** The normalised name column. */
    public static final String COLUMN = "nombre_busqueda";

    /** The name of the trigram index on the table in service. */
    public static final String INDEX = "ruc_registry_search";

    /**
     * The table of the names' distinct words of {@link #MIN_WORD} or more characters (changeset 017), where search
     * finds the close spellings of a word; {@link #WORDS_INDEX} is its trigram index.
     */
    public static final String WORDS = "ruc_registry_words";
    public static final String WORDS_INDEX = "ruc_registry_words_trgm";

    /** Words shorter than this are not search words (they carry too few trigrams to be looked up). */
    public static final int MIN_WORD = 3;

    private RegistrySearch() {
    }

    /**
     * The column's value in a new registry built from staged rows {@code staged}: the name the load normalised
     * while staging ({@link SearchNames}), or, where it left none, the database's normalisation of the name.
     */
    public static String valueOf(String staged) {
        return "coalesce(" + staged + "." + COLUMN + ", quipu_search_name(" + staged + ".razon_social))";
    }

    /** Gives {@code table} the trigger that keeps the column right (as changeset 016 gave {@code ruc_registry}). */
    public static String triggerOn(String table) {
        return "create trigger ruc_registry_search_name before insert or update of razon_social, " + COLUMN + " on "
                + table + " for each row execute function quipu_registry_search_name()";
    }

    /**
     * Creates {@code wordsTable}, the distinct words of {@code registry}'s names, with its primary key and its
     * trigram index {@code wordsIndex} (as changeset 017 made {@link #WORDS}).
     */
    public static List<String> wordsOf(String registry, String wordsTable, String wordsIndex) {
        return List.of("create table " + wordsTable + " as select distinct w as word from " + registry
                        + ", unnest(string_to_array(" + COLUMN + ", ' ')) w where length(w) >= " + MIN_WORD,
                "alter table " + wordsTable + " add primary key (word)",
                "create index " + wordsIndex + " on " + wordsTable + " using gin (word gin_trgm_ops)");
    }

    /** Creates the trigram index {@code name} on {@code table}. */
    public static String indexOn(String table, String name) {
        return "create index " + name + " on " + table + " using gin (" + COLUMN + " gin_trgm_ops)";
    }
}
