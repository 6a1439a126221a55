package pe.quipu.api.ruc;

import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.Query;
import pe.quipu.api.domain.DomainException.InvalidInput;
import pe.quipu.core.ruc.RegistrySearch;

import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Search by name over {@code ruc_registry} (contract §10), inside PostgreSQL: the normalised name column and its
 * trigram index (changeset 016).
 *
 * <p>The query text is normalised by the same SQL function as the names. Its words of 3 or more characters are the
 * search's words. Candidates come from the trigram index in two bounded sets: names holding every word
 * ({@code LIKE '%word%'} each, which the index answers by intersecting the words' trigrams), at most
 * {@link #CANDIDATES}; and, for each word, names holding a word close to it ({@code word <% name}: word similarity
 * at least {@code pg_trgm.word_similarity_threshold}, 0.6 by default), at most {@link #CLOSE_CANDIDATES} each: a
 * misspelled word is usually the rare one, and its own set finds the names it was meant to match, which a set
 * drawn for the whole query would drown among the names sharing its common words (INVERSIONES… S.A.C.). The caps
 * make a query of one very common word ("inversiones", "sac") cost what a rare one costs; such a query sees some
 * of its matches only, and is narrowed by more words or a filter. The candidates are ranked: all words present
 * first, then similarity to the query, then RUC; pages continue by keyset on that order. The close sets are read
 * only when no name holds every word (a misspelled query): a query whose words are all there never pays for them,
 * and lists only the names that hold them all.
 *
 * <p>Jdbi's fluent API rather than a SQL object: the number of words, hence of bound patterns, varies.
 */
public final class RucSearch {

    /** At most this many names holding every word are ranked per search. */
    static final int CANDIDATES = 1_000;
    /** At most this many names close to each word (of the first {@link #MAX_CLOSE_WORDS}) are ranked too. */
    static final int CLOSE_CANDIDATES = 300;
    static final int MAX_CLOSE_WORDS = 6;
    /** Words shorter than this take no part in "all words present" (they carry too few trigrams to be looked up). */
    static final int MIN_WORD = 3;

    /** What the caller asked: the query as given, the filters (null when absent) and the page's size. */
    record Request(String q, String ubigeo, String estado, String condicion, int limit) {
    }

    /** One result: its RUC and where it sits in the ranking. */
    record Hit(String ruc, boolean partial, float score, long generation) {
    }

    /** A page of RUCs in ranking order and the cursor of the next page (null on the last). */
    record Page(List<String> rucs, SearchCursor next) {
    }

    private final Jdbi jdbi;

    public RucSearch(Jdbi jdbi) {
        this.jdbi = jdbi;
    }

    /**
     * One page of the search.
     *
     * @param fingerprint the fingerprint of the request's parameters, carried by the next page's cursor
     * @param after       where the previous page ended, or null for the first page; its fingerprint already matched
     * @throws InvalidInput when the query has no word of 3 or more characters, or the cursor is stale
     */
    Page page(Request request, String fingerprint, SearchCursor after) {
        return jdbi.inTransaction(handle -> {
            // A capped candidate set is the same on every page only if it is read in the same order: no parallel
            // workers, whose interleaving varies. The plans are small anyway.
            handle.execute("set local max_parallel_workers_per_gather = 0");
            Start start = handle.createQuery("""
                            select quipu_search_name(:q) as text,
                                   (select loaded_at from dataset_loads where dataset = 'padron') as loaded""")
                    .bind("q", request.q())
                    .map((rs, ctx) -> new Start(rs.getString("text"),
                            generation(rs.getObject("loaded", OffsetDateTime.class))))
                    .one();
            List<String> words = Arrays.stream(start.text().split(" "))
                    .filter(w -> w.length() >= MIN_WORD).distinct().toList();
            if (words.isEmpty()) {
                throw new InvalidInput("q", "must hold at least one word of " + MIN_WORD
                        + " or more letters or digits");
            }
            if (after != null && after.generation() != start.generation()) {
                throw stale();
            }
            List<Hit> hits = hits(handle, request, start.text(), words, after);
            // A load may have swapped the registry between the statements: the search read the new one.
            long generation = hits.isEmpty() ? start.generation() : hits.getLast().generation();
            if (after != null && hits.stream().anyMatch(h -> h.generation() != after.generation())) {
                throw stale();
            }
            boolean more = hits.size() > request.limit();
            List<Hit> shown = more ? hits.subList(0, request.limit()) : hits;
            Hit last = more ? shown.getLast() : null;
            return new Page(shown.stream().map(Hit::ruc).toList(), last == null ? null
                    : new SearchCursor(generation, fingerprint, last.partial(), last.score(), last.ruc()));
        });
    }

    private record Start(String text, long generation) {
    }

    /**
     * The page's hits and one more, if any: from the names holding every word, or, when no name holds every word,
     * from the names close to some word.
     */
    private static List<Hit> hits(Handle handle, Request request, String text, List<String> words,
                                  SearchCursor after) {
        String column = RegistrySearch.COLUMN;
        List<String> likes = new ArrayList<>();
        for (int i = 0; i < words.size(); i++) {
            likes.add(column + " like :w" + i);
        }
        String allWords = String.join(" and ", likes);
        StringBuilder filters = new StringBuilder();
        if (request.ubigeo() != null) {
            filters.append(" and ubigeo like :ubigeo");
        }
        if (request.estado() != null) {
            filters.append(" and estado = :estado");
        }
        if (request.condicion() != null) {
            filters.append(" and condicion = :condicion");
        }
        int wanted = request.limit() + 1;
        List<Hit> hits = new ArrayList<>(wanted);
        if (after == null || !after.partial()) {
            String sql = """
                    with candidates as materialized (
                        select ruc, %1$s from ruc_registry where %2$s%3$s limit %4$d
                    )
                    select ruc, false as partial, score, %5$s from (
                        select ruc, similarity(%1$s, :text) as score from candidates) ranked
                    %6$s
                    order by score desc, ruc
                    limit :n""".formatted(column, allWords, filters, CANDIDATES, LOADED,
                    after == null ? "" : "where (-score, ruc) > (cast(:negScore as real), cast(:ruc as char(11)))");
            hits.addAll(run(handle.createQuery(sql), request, text, words, false, after, wanted));
        }
        // Close names only for a search where no name holds every word: its first page found none, or its cursor is
        // already among close names. Reading them costs a trigram scan per word, several times what the search
        // for names with every word costs, and a name with every word is what such a search was after.
        boolean noneComplete = after == null ? hits.isEmpty() : after.partial();
        if (noneComplete) {
            StringBuilder close = new StringBuilder();
            for (int i = 0; i < Math.min(words.size(), MAX_CLOSE_WORDS); i++) {
                close.append(i == 0 ? "" : " union ").append("""
                        (select ruc, %1$s from ruc_registry where :x%2$d <%% %1$s and not (%3$s)%4$s limit %5$d)"""
                        .formatted(column, i, allWords, filters, CLOSE_CANDIDATES));
            }
            String sql = """
                    with candidates as materialized (%1$s)
                    select ruc, true as partial, score, %2$s from (
                        select ruc, similarity(%3$s, :text) as score from candidates) ranked
                    %4$s
                    order by score desc, ruc
                    limit :n""".formatted(close, LOADED, column, after == null || !after.partial() ? ""
                    : "where (-score, ruc) > (cast(:negScore as real), cast(:ruc as char(11)))");
            hits.addAll(run(handle.createQuery(sql), request, text, words, true,
                    after == null || !after.partial() ? null : after, wanted - hits.size()));
        }
        return hits;
    }

    /** The load the statement read, with each row: a swap between two statements shows as a different time. */
    private static final String LOADED = "(select loaded_at from dataset_loads where dataset = 'padron') as loaded";

    /**
     * Binds what the statement names (Jdbi refuses superfluous parameters) and runs it.
     *
     * @param close whether the statement holds the close-word sets ({@code :x0…})
     * @param after the keyset the statement continues from ({@code :negScore, :ruc}), or null when it has none
     */
    private static List<Hit> run(Query query, Request request, String text, List<String> words, boolean close,
                                 SearchCursor after, int n) {
        query.bind("text", text).bind("n", n);
        for (int i = 0; i < words.size(); i++) {
            // Normalised words hold only a-z and 0-9: nothing to escape in a LIKE pattern.
            query.bind("w" + i, "%" + words.get(i) + "%");
        }
        for (int i = 0; close && i < Math.min(words.size(), MAX_CLOSE_WORDS); i++) {
            query.bind("x" + i, words.get(i));
        }
        if (request.ubigeo() != null) {
            query.bind("ubigeo", request.ubigeo() + "%");
        }
        if (request.estado() != null) {
            query.bind("estado", request.estado());
        }
        if (request.condicion() != null) {
            query.bind("condicion", request.condicion());
        }
        if (after != null) {
            query.bind("negScore", -after.score()).bind("ruc", after.ruc());
        }
        return query.map((rs, ctx) -> new Hit(rs.getString("ruc"), rs.getBoolean("partial"), rs.getFloat("score"),
                        generation(rs.getObject("loaded", OffsetDateTime.class))))
                .list();
    }

    private static long generation(OffsetDateTime loaded) {
        return loaded == null ? -1 : ChronoUnit.MICROS.between(java.time.Instant.EPOCH, loaded.toInstant());
    }

    private static InvalidInput stale() {
        return new InvalidInput("cursor", "was made before the registry was reloaded; its order no longer holds:"
                + " start the search again without a cursor");
    }
}
