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

    /**
     * The RUCs of the list that {@code rucs} does not hold, deleted, and their changes from the list's feed (nothing
     * is kept of a RUC taken off a list); returns how many went.
     */
    @SqlQuery("""
            with gone as (
                    delete from watchlist_rucs w
                     where w.watchlist_id = :id
                       and not exists (select 1 from unnest(cast(:rucs as text[])) n (ruc)
                                        where cast(n.ruc as char(11)) = w.ruc)
                    returning w.ruc),
                 fed as (
                    delete from watchlist_changes f using gone g, ruc_changes c
                     where c.ruc = g.ruc and f.watchlist_id = :id and f.at = c.at and f.change_id = c.id)
            select count(*) from gone""")
    int keepOnly(long id, String[] rucs);

    /** The RUCs of {@code rucs} the list lacks, added at {@code now}; returns how many came. */
    @SqlUpdate("""
            insert into watchlist_rucs (watchlist_id, ruc, account_id, added_at)
            select :id, cast(n.ruc as char(11)), :accountId, :now from unnest(cast(:rucs as text[])) n (ruc)
             order by 2
                on conflict (watchlist_id, ruc) do nothing""")
    int add(long id, UUID accountId, String[] rucs, Instant now);

    /** The RUC taken off the list, and its changes from the list's feed; returns 1, or 0 when it was not on it. */
    @SqlQuery("""
            with gone as (
                    delete from watchlist_rucs where watchlist_id = :id and ruc = cast(:ruc as char(11))
                    returning ruc),
                 fed as (
                    delete from watchlist_changes f using gone g, ruc_changes c
                     where c.ruc = g.ruc and f.watchlist_id = :id and f.at = c.at and f.change_id = c.id)
            select count(*) from gone""")
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
     * first; each recorded while its RUC was on the list (from when it was last added). Read from the list's feed
     * (changeset 032) in its key's order, each row's RUC checked on the list by the list's key, then each change looked
     * up in the log by id: a page costs about {@code n} index probes of each, whatever the list's size or the log's.
     * The probes are subqueries PostgreSQL cannot pull up ({@code offset 0}): a plan of its own choosing walked the
     * whole log's key to merge it with the feed (25 ms for a page of 1,000 over a log of 20,000 changes, and growing
     * with the log, against 8-10 ms).
     */
    @SqlQuery("""
            with page as materialized (
                    select f.at, f.change_id from watchlist_changes f
                     cross join lateral (select w.added_at from watchlist_rucs w
                                          where w.watchlist_id = f.watchlist_id and w.ruc = f.ruc offset 0) w
                     where f.watchlist_id = :id and f.at >= :from and (f.at, f.change_id) > (:at, :afterId)
                       and w.added_at <= f.at
                     order by f.at, f.change_id
                     limit :n)
            select c.id, rtrim(c.ruc) as ruc, c.kind, c.changes::text as changes, c.padrones::text as padrones,
                   c.load_run_id, c.at
              from page p
             cross join lateral (select * from ruc_changes c where c.id = p.change_id offset 0) c
             order by p.at, p.change_id""")
    @RegisterConstructorMapper(ChangeRow.class)
    List<ChangeRow> changes(long id, Instant from, Instant at, long afterId, int n);
}
