--liquibase formatted sql

--changeset quipu:032-watchlist-feeds
-- Each watchlist's changes, as the load that recorded them found the list (contract §11: only changes recorded while
-- the RUC was on the list are shown): one row per list and per change-log row of a RUC on it, written in the
-- publishing transaction by the statement that writes the load's ruc.changed events. GET
-- /v1/watchlists/{name}/changes reads a page in (at, change_id) order from the primary key, checks each row's RUC
-- (kept here) on the list by the list's key and looks the change up by its id, whatever the list's size or the log's:
-- a join of a 100,000-RUC list with a load's change log, which the page otherwise needs, took 50-275 ms.
-- change_id's cascade keeps the rows within the log's retention.
create table watchlist_changes (
    watchlist_id bigint      not null references watchlists (id) on delete cascade,
    at           timestamptz not null,
    change_id    bigint      not null references ruc_changes (id) on delete cascade,
    ruc          char(11)    not null,
    primary key (watchlist_id, at, change_id)
);
create index watchlist_changes_by_change on watchlist_changes (change_id);

-- The changes recorded so far of the RUCs on the lists, from when each joined its list.
insert into watchlist_changes (watchlist_id, at, change_id, ruc)
select r.watchlist_id, c.at, c.id, c.ruc
  from ruc_changes c
  join watchlist_rucs r on r.ruc = c.ruc and c.at >= r.added_at;
