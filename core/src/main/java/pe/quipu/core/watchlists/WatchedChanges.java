package pe.quipu.core.watchlists;

import org.jdbi.v3.core.Handle;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

import java.time.Instant;

/**
 * What one load changed of the watched RUCs (contract §11): each list's feed (changeset 032: a row per list and per
 * change of a RUC on it, which {@code GET /v1/watchlists/{name}/changes} pages through) and the {@code ruc.changed}
 * events (one outbox row per account and per RUC of the load's change log that the account watches, naming every list
 * of the account that holds it). Written by the load in the transaction that publishes it and records its change log,
 * right after the log's rows, by one statement that joins the load's rows to the watchlists inside the database:
 * nothing loops over the watched RUCs, whatever their number.
 *
 * <p>Only accounts that can receive the event get one: not deleted, with an active webhook endpoint subscribed to
 * {@code ruc.changed} (docs/decisions.md, "Watchlists"). The worker delivers them like any other event.
 */
public final class WatchedChanges {

    /** The event type. */
    public static final String EVENT_TYPE = "ruc.changed";

    private WatchedChanges() {
    }

    /**
     * Appends the load's changes to the feeds of the lists that hold their RUCs, and its {@code ruc.changed} events,
     * on {@code handle}, in its transaction.
     *
     * @param runId the load's run id, its change log rows' {@code load_run_id}
     * @param at    the load's publication time, its change log rows' {@code at} (and the events' {@code createdAt})
     * @return how many events were written
     */
    public static long announce(Handle handle, long runId, Instant at) {
        return handle.attach(EventRows.class).announce(runId, at);
    }

    interface EventRows {
        // One join of the load's rows with the lists, read twice. The load's rows are found by (at, id), the log's
        // index in time order: every row of one publication has the publication's time. A list's feed takes a
        // change from when its RUC joined the list (a RUC put on a list after the change was recorded never sees
        // it); an event, any RUC on a list when the load publishes. The event's data members are the change
        // object's, plus the account's list names.
        @SqlUpdate("""
                with watched as materialized (
                        select r.watchlist_id, r.account_id, r.added_at, c.id, c.ruc, c.kind, c.changes, c.padrones,
                               c.load_run_id, c.at
                          from ruc_changes c
                          join watchlist_rucs r on r.ruc = c.ruc
                         where c.at = :at and c.load_run_id = :runId),
                     fed as (
                        insert into watchlist_changes (watchlist_id, at, change_id, ruc)
                        select watchlist_id, at, id, ruc from watched where at >= added_at)
                insert into events (id, type, account_id, data, created_at)
                select quipu_event_id(), 'ruc.changed', account_id,
                       jsonb_build_object('ruc', ruc, 'watchlists', to_jsonb(names), 'kind', kind,
                                          'changes', changes, 'padrones', padrones, 'loadRunId', load_run_id,
                                          'at', quipu_instant_text(at)),
                       at
                  from (select w.account_id, w.id, rtrim(w.ruc) as ruc, w.kind, w.changes, w.padrones,
                               w.load_run_id, w.at, array_agg(l.name order by l.name) as names
                          from watched w
                          join watchlists l on l.id = w.watchlist_id
                         where w.account_id in (
                                 select e.account_id
                                   from webhook_endpoints e
                                   join webhook_subscriptions s on s.endpoint_id = e.id
                                                               and s.event_type = 'ruc.changed'
                                   join accounts a on a.id = e.account_id and a.deleted_at is null
                                  where e.active)
                         group by w.account_id, w.id, w.ruc, w.kind, w.changes, w.padrones, w.load_run_id, w.at)
                       by_account
                 order by id, account_id""")
        long announce(long runId, Instant at);
    }
}
