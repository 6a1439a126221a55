--liquibase formatted sql

--changeset quipu:033-idempotency-keys
-- The first answer to a POST sent with an Idempotency-Key, replayed to a retry with the same key and body within 24 h
-- (docs/decisions.md, "Idempotent POSTs"). The key itself is never stored: key_id is a hash of it, and the answer
-- (which may hold a new API key's or webhook's secret) is encrypted with a key derived from it, so the table alone
-- gives neither back. Per account, so that every instance sharing the database replays it.
create table idempotency_keys (
    account_id   uuid not null references accounts (id) on delete cascade,
    key_id       bytea not null,
    -- SHA-256 of the method, the path and the body: another request under the same key is refused (422)
    fingerprint  bytea not null,
    -- null while the first request runs (a retry meanwhile is 409)
    status       integer,
    answer       bytea,
    created_at   timestamptz not null,
    expires_at   timestamptz not null,
    primary key (account_id, key_id)
);
create index idempotency_keys_expiry on idempotency_keys (expires_at);
