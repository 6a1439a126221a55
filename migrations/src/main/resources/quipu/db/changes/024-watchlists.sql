--liquibase formatted sql

--changeset quipu:024-watchlists
-- An account's watchlists (contract §11): named lists of RUCs whose changes the account is told of (ruc.changed) and
-- can page through (GET /v1/watchlists/{name}/changes). rucs is the list's size, kept by the statements that add and
-- remove entries, so listing an account's lists never counts entries.
create table watchlists (
    id          bigint generated always as identity primary key,
    account_id  uuid not null references accounts (id) on delete cascade,
    name        text not null,
    rucs        integer not null default 0,
    created_at  timestamptz not null,
    updated_at  timestamptz not null,
    unique (account_id, name)
);

-- One RUC on one list. added_at is when it joined the list (kept when a PUT keeps it): the list's changes show only
-- what the log recorded from then on. account_id repeats the list's, so that the distinct RUCs of an account (its
-- plan's watchlistRucs cap) are read from one index, and the load's fan-out finds each changed RUC's watchers by
-- the RUC alone.
create table watchlist_rucs (
    watchlist_id  bigint not null references watchlists (id) on delete cascade,
    ruc           char(11) not null,
    account_id    uuid not null,
    added_at      timestamptz not null,
    primary key (watchlist_id, ruc)
);
create index watchlist_rucs_by_ruc on watchlist_rucs (ruc);
create index watchlist_rucs_by_account on watchlist_rucs (account_id, ruc);

--changeset quipu:024-event-ids-in-sql splitStatements:false
-- An outbox event id as EventOutbox writes one ('evt_' and 24 base62 characters), for events written by a statement
-- (ruc.changed, one per account and changed RUC of a load): the base64 of 36 random bytes without '+' and '/' is
-- base62, and 48 characters leave at least 24 but with a vanishing chance (under 10^-20); the loop covers it.
create function quipu_event_id() returns text language plpgsql volatile parallel safe as $$
declare
    chars text := '';
begin
    while length(chars) < 24 loop
        chars := chars || translate(encode(uuid_send(gen_random_uuid()) || uuid_send(gen_random_uuid())
                                           || uuid_send(gen_random_uuid()), 'base64'), E'+/=\n', '');
    end loop;
    return 'evt_' || left(chars, 24);
end $$;

-- An instant as the API writes one (Java's Instant.toString: UTC, 'Z', the fraction in groups of three digits and
-- none when zero), so that an event's at reads exactly as the same change's at in GET /v1/watchlists/{name}/changes.
create function quipu_instant_text(t timestamptz) returns text language sql immutable parallel safe
    return to_char(t at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS')
        || case when extract(microseconds from t)::bigint % 1000000 = 0 then ''
                when extract(microseconds from t)::bigint % 1000 = 0
                    then '.' || to_char(extract(microseconds from t)::bigint % 1000000 / 1000, 'FM000')
                else '.' || to_char(extract(microseconds from t)::bigint % 1000000, 'FM000000') end
        || 'Z';
