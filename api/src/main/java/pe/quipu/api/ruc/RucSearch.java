package pe.quipu.api.ruc;

import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.Query;
import pe.quipu.api.domain.DomainException.InvalidInput;
import pe.quipu.core.ruc.RegistrySearch;
import pe.quipu.api.domain.Text;

import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Search by name over {@code ruc_registry} (contract §10), inside PostgreSQL: the normalised name column and its
 * trigram index (changeset 016), and the names' words with theirs (changeset 017).
 *
 * <p>The query text is normalised by the same SQL function as the names. Its words of 3 or more characters are the
 * search's words. Candidates come from the trigram index in bounded sets, ranked by similarity to the query, then
 * RUC; pages continue by keyset on that order. First the names holding every word ({@code LIKE '%word%'} each,
 * which the index answers by intersecting the words' trigrams), at most {@link #CANDIDATES}. Only when there is no
 * such name (a misspelled query, a word the name lacks) the close names ({@link #closeHits}): each word not found
 * as a whole word among the names' words (changeset 017) also stands for its closest words there, so a misspelling
 * is looked up among short distinct words, not tested against millions of names; then the names holding each word
 * or a spelling of it, or, when none does, the names holding some word or spelling. A query whose words are all
 * there never pays for close names, and lists only the names that hold them all. The caps make a query of one very
 * common word ("inversiones", "sac") cost what a rare one costs; such a query sees some of its matches only, and is
 * narrowed by more words or a filter.
 *
 * <p>Jdbi's fluent API rather than a SQL object: the number of words, hence of bound patterns, varies.
 */
public final class RucSearch {

    /** At most this many names holding every word are ranked per search. */
    static final int CANDIDATES = 1_000;
    /** At most this many names holding some word or a close spelling of it are ranked, per word. */
    static final int CLOSE_CANDIDATES = 300;
    /** Close spellings are looked up for the first this many words. */
    static final int MAX_CLOSE_WORDS = 6;
    /** A word no name holds stands for this many of the names' words closest to it, too. */
    static final int SPELLINGS = 3;
    /**
     * How close (pg_trgm similarity) a spelling must be: one letter changed in a word of 6 letters (QXISPE for
     * QUISPE) is 0.4. At 0.3, MASINTIN already stood for MARTIN.
     */
    static final String SPELLING_SIMILARITY = "0.4";
    private static final int MIN_WORD = RegistrySearch.MIN_WORD;
    private static final String COLUMN = RegistrySearch.COLUMN;

    /** What the caller asked: the query as given, the filters (null when absent) and the page's size. */
    record Request(String q, String ubigeo, String estado, String condicion, int limit) {
    }

    /** The tiers of a search's candidates: names holding every word, or each word or a spelling, or some. */
    static final int COMPLETE = 0;
    static final int EVERY_SPELLING = 1;
    static final int SOME_SPELLING = 2;

    /** One result: its RUC and where it sits in the ranking (its tier, then its score). */
    record Hit(String ruc, int tier, float score, long generation) {
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
            // Every statement planned for its own patterns: after five runs of one SQL text PgJDBC prepares it on
            // the server, whose generic plan knows no pattern and may read 25,000 heap pages for a rare word
            // (a misspelled search took 147 ms instead of 16 in the first 2 M-row bench).
            handle.execute("set local plan_cache_mode = force_custom_plan");
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
                throw new InvalidInput("q", Text.of("ruc.search.q_no_word", MIN_WORD));
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
                    : new SearchCursor(generation, fingerprint, last.tier(), last.score(), last.ruc()));
        });
    }

    private record Start(String text, long generation) {
    }

    /**
     * The page's hits and one more, if any: from the names holding every word, or, when no name holds every word,
     * from the close names: those holding each word or a close spelling of it, or, when there are none either,
     * those holding some word or a close spelling of it.
     */
    private static List<Hit> hits(Handle handle, Request request, String text, List<String> words,
                                  SearchCursor after) {
        String filters = filters(request);
        int wanted = request.limit() + 1;
        List<Hit> hits = new ArrayList<>(wanted);
        if (after == null || after.tier() == COMPLETE) {
            Map<String, String> patterns = new LinkedHashMap<>();
            List<String> likes = new ArrayList<>();
            for (String word : words) {
                likes.add(like(patterns, word));
            }
            String candidates = RegistrySearch.candidates("ruc, " + COLUMN, String.join(" and ", likes) + filters,
                    CANDIDATES);
            hits.addAll(run(handle, ranked(candidates, COMPLETE, after != null), request, text, patterns, after,
                    wanted));
        }
        // Close names only for a search where no name holds every word: its first page found none, or its cursor is
        // already among close names. A name with every word is what such a search was after.
        boolean noneComplete = after == null ? hits.isEmpty() : after.tier() != COMPLETE;
        if (noneComplete) {
            SearchCursor from = after == null || after.tier() == COMPLETE ? null : after;
            hits.addAll(closeHits(handle, request, text, words, filters, from, wanted - hits.size()));
        }
        return hits;
    }

    /**
     * The close names' hits, from {@code from} on: each search word stands for itself and, when no name holds it as
     * a whole word, for its {@link #SPELLINGS} closest words among the names' words ({@link RegistrySearch#WORDS}:
     * trigram similarity at least {@link #SPELLING_SIMILARITY}). The names holding every word or a spelling of
     * each, at most {@link #CANDIDATES}; when there are none, the names holding some word or spelling, at most
     * {@link #CLOSE_CANDIDATES} per word. Which of the two sets a search lists depends only on the registry, and
     * its cursor carries it ({@link Hit#tier}), so every page reads the same one.
     */
    private static List<Hit> closeHits(Handle handle, Request request, String text, List<String> words,
                                       String filters, SearchCursor from, int wanted) {
        List<List<String>> spellings = spellings(handle, words.subList(0, Math.min(words.size(), MAX_CLOSE_WORDS)));
        Map<String, String> patterns = new LinkedHashMap<>();
        List<String> groups = new ArrayList<>();
        for (List<String> spelling : spellings) {
            List<String> likes = new ArrayList<>();
            for (String word : spelling) {
                likes.add(like(patterns, word));
            }
            groups.add("(" + String.join(" or ", likes) + ")");
        }
        if (from == null || from.tier() == EVERY_SPELLING) {
            String everyWord = RegistrySearch.candidates("ruc, " + COLUMN, String.join(" and ", groups) + filters,
                    CANDIDATES);
            List<Hit> hits = run(handle, ranked(everyWord, EVERY_SPELLING, from != null), request, text, patterns,
                    from, wanted);
            if (!hits.isEmpty() || from != null) {
                return hits;
            }
        }
        List<String> someWord = new ArrayList<>();
        for (String group : groups) {
            someWord.add("(" + RegistrySearch.candidates("ruc, " + COLUMN, group + filters, CLOSE_CANDIDATES) + ")");
        }
        return run(handle, ranked(String.join(" union ", someWord), SOME_SPELLING, from != null), request, text,
                patterns, from, wanted);
    }

    /**
     * Each word and, when it is not one of the names' words, its closest ones: one list per word, the word first.
     */
    private static List<List<String>> spellings(Handle handle, List<String> words) {
        handle.execute("set local pg_trgm.similarity_threshold = " + SPELLING_SIMILARITY);
        List<List<String>> spellings = new ArrayList<>();
        for (String word : words) {
            spellings.add(new ArrayList<>(List.of(word)));
        }
        handle.createQuery("""
                        select q.i, c.word
                          from unnest(cast(:words as text[])) with ordinality as q(x, i)
                         cross join lateral (
                               select w.word from %1$s w
                                where w.word %% q.x and not exists (select 1 from %1$s e where e.word = q.x)
                                order by similarity(w.word, q.x) desc, w.word
                                limit %2$d) c
                         order by q.i, similarity(c.word, q.x) desc, c.word""".formatted(RegistrySearch.WORDS, SPELLINGS))
                .bind("words", words.toArray(String[]::new))
                .map((rs, ctx) -> spellings.get(rs.getInt("i") - 1).add(rs.getString("word")))
                .list();
        return spellings;
    }

    /** {@code column LIKE :pN} for {@code word}, its pattern added to {@code patterns}. */
    private static String like(Map<String, String> patterns, String word) {
        String name = "p" + patterns.size();
        // Normalised words hold only a-z and 0-9: nothing to escape in a LIKE pattern.
        patterns.put(name, "%" + word + "%");
        return COLUMN + " like :" + name;
    }

    private static String filters(Request request) {
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
        return filters.toString();
    }

    /** The candidates ranked: similarity to the query, then RUC; from the keyset {@code :negScore, :ruc} on. */
    private static String ranked(String candidates, int tier, boolean keyset) {
        return """
                with candidates as materialized (%1$s)
                select ruc, %2$d as tier, score, %3$s from (
                    select ruc, similarity(%4$s, :text) as score from candidates) ranked
                %5$s
                order by score desc, ruc
                limit :n""".formatted(candidates, tier, LOADED, COLUMN,
                keyset ? "where (-score, ruc) > (cast(:negScore as real), cast(:ruc as char(11)))" : "");
    }

    /** The load the statement read, with each row: a swap between two statements shows as a different time. */
    private static final String LOADED = "(select loaded_at from dataset_loads where dataset = 'padron') as loaded";

    /** Binds the patterns and the filters (Jdbi refuses superfluous parameters, so only what the SQL names). */
    private static Query bind(Query query, Request request, Map<String, String> patterns) {
        patterns.forEach(query::bind);
        if (request.ubigeo() != null) {
            query.bind("ubigeo", request.ubigeo() + "%");
        }
        if (request.estado() != null) {
            query.bind("estado", request.estado());
        }
        if (request.condicion() != null) {
            query.bind("condicion", request.condicion());
        }
        return query;
    }

    /** Runs a {@link #ranked} statement, continuing from {@code after} ({@code :negScore, :ruc}) when not null. */
    private static List<Hit> run(Handle handle, String sql, Request request, String text,
                                 Map<String, String> patterns, SearchCursor after, int n) {
        Query query = bind(handle.createQuery(sql), request, patterns).bind("text", text).bind("n", n);
        if (after != null) {
            query.bind("negScore", -after.score()).bind("ruc", after.ruc());
        }
        return query.map((rs, ctx) -> new Hit(rs.getString("ruc"), rs.getInt("tier"), rs.getFloat("score"),
                        generation(rs.getObject("loaded", OffsetDateTime.class))))
                .list();
    }

    private static long generation(OffsetDateTime loaded) {
        return loaded == null ? -1 : ChronoUnit.MICROS.between(java.time.Instant.EPOCH, loaded.toInstant());
    }

    private static InvalidInput stale() {
        return new InvalidInput("cursor", Text.of("ruc.search.cursor_stale"));
    }
}
