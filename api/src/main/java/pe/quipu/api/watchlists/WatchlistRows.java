package pe.quipu.api.watchlists;

import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * The watchlists' SQL (changeset 024). A list's RUCs are written and compared as sets, by statements over the
 * request's array: nothing loops over a list's entries in Java. The RUC is cast to the column's type so that the
 * indexes serve it.
 */
interface WatchlistRows {

    /** A list as its answers show it, with its row id. */
    record ListRow(long id, String name, int rucs, Instant createdAt, Instant updatedAt) {
    }

    /** One change of the log, its jsonb members as their text. */
    record ChangeRow(long id, String ruc, String kind, String changes, String padrones, long loadRunId, Instant at) {
    }

    /** Locks the account for this transaction: its lists change one call at a time. False when it is deleted. */
    @SqlQuery("select true from accounts where id = :accountId and deleted_at is null for update")
    Optional<Boolean> lockAccount(UUID accountId);

    @SqlQuery("""
            select id, name, rucs, created_at, updated_at from watchlists
             where account_id = :accountId and name = :name""")
    @RegisterConstructorMapper(ListRow.class)
    Optional<ListRow> find(UUID accountId, String name);

    @SqlQuery("""
            select id, name, rucs, created_at, updated_at from watchlists
             where account_id = :accountId order by name""")
    @RegisterConstructorMapper(ListRow.class)
    List<ListRow> all(UUID accountId);

    @SqlQuery("select count(*) from watchlists where account_id = :accountId")
    int lists(UUID accountId);

    @SqlQuery("""
            insert into watchlists (account_id, name, created_at, updated_at) values (:accountId, :name, :now, :now)
            returning id""")
    long create(UUID accountId, String name, Instant now);

    /** The RUCs of the list that {@code rucs} does not hold, deleted; returns how many went. */
    @SqlUpdate("""
            delete from watchlist_rucs w
             where w.watchlist_id = :id
               and not exists (select 1 from unnest(cast(:rucs as text[])) n (ruc) where cast(n.ruc as char(11)) = w.ruc)""")
    int keepOnly(long id, String[] rucs);

    /** The RUCs of {@code rucs} the list lacks, added at {@code now}; returns how many came. */
    @SqlUpdate("""
            insert into watchlist_rucs (watchlist_id, ruc, account_id, added_at)
            select :id, cast(n.ruc as char(11)), :accountId, :now from unnest(cast(:rucs as text[])) n (ruc)
             order by 2
                on conflict (watchlist_id, ruc) do nothing""")
    int add(long id, UUID accountId, String[] rucs, Instant now);

    @SqlUpdate("delete from watchlist_rucs where watchlist_id = :id and ruc = cast(:ruc as char(11))")
    int remove(long id, String ruc);

    @SqlUpdate("update watchlists set rucs = rucs + :delta, updated_at = :now where id = :id")
    void counted(long id, int delta, Instant now);

    @SqlUpdate("delete from watchlists where id = :id")
    void delete(long id);

    /** The distinct RUCs over all of the account's lists (its plan's {@code watchlistRucs}), from one index. */
    @SqlQuery("select count(*) from (select distinct ruc from watchlist_rucs where account_id = :accountId) d")
    long distinctRucs(UUID accountId);

    /** Up to {@code n} RUCs of the list after {@code after} (the empty string: from the first), in RUC order. */
    @SqlQuery("""
            select rtrim(ruc) from watchlist_rucs
             where watchlist_id = :id and ruc > cast(:after as char(11))
             order by ruc limit :n""")
    List<String> rucs(long id, String after, int n);

    /**
     * Up to {@code n} changes to the list's RUCs after the keyset {@code (at, id)}, from {@code from} on, oldest
     * first; each recorded while its RUC was on the list (from when it was last added). List first: each RUC's own
     * changes from the log's {@code (ruc, at, id)} index, merged; costs one probe per RUC of the list, whatever the
     * log's size, so it serves lists that are small beside the registry.
     */
    @SqlQuery("""
            select c.id, rtrim(c.ruc) as ruc, c.kind, c.changes::text as changes, c.padrones::text as padrones,
                   c.load_run_id, c.at
              from watchlist_rucs w
              cross join lateral (
                    select * from ruc_changes c
                     where c.ruc = w.ruc and c.at >= greatest(:from, w.added_at) and (c.at, c.id) > (:at, :afterId)
                     order by c.at, c.id
                     limit :n) c
             where w.watchlist_id = :id
             order by c.at, c.id
             limit :n""")
    @RegisterConstructorMapper(ChangeRow.class)
    List<ChangeRow> changesListFirst(long id, Instant from, Instant at, long afterId, int n);

    /**
     * As {@link #changesListFirst}, for a list that is a large share of the registry: one join of the list with the
     * log's window (from {@code from}, which the caller bounds by the list's creation), whose plan PostgreSQL chooses
     * (a hash of the window and the list at 2 M records). A plan forced to walk the log's time index and look each
     * change up in the list measured slower on the bench (p50 81 ms against 52 ms for a page of 1,000 of a
     * 100,000-RUC list), as a load's changes come at one instant and a page must pass all of them.
     */
    @SqlQuery("""
            select c.id, rtrim(c.ruc) as ruc, c.kind, c.changes::text as changes, c.padrones::text as padrones,
                   c.load_run_id, c.at
              from ruc_changes c
              join watchlist_rucs w on w.watchlist_id = :id and w.ruc = c.ruc
             where c.at >= :from and c.at >= w.added_at and (c.at, c.id) > (:at, :afterId)
             order by c.at, c.id
             limit :n""")
    @RegisterConstructorMapper(ChangeRow.class)
    List<ChangeRow> changesByJoin(long id, Instant from, Instant at, long afterId, int n);

    /** The registry's size as PostgreSQL last estimated it (no count): what a list's share is measured against. */
    @SqlQuery("select greatest(reltuples, 0)::bigint from pg_class where oid = 'ruc_registry'::regclass")
    long registryEstimate();
}
