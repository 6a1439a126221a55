--liquibase formatted sql

--changeset quipu:004-account-profile
-- Accounts made by the operator's create-key command have no password and cannot log in until one is set.
alter table accounts
    add column nombre               text,
    add column password_hash        text,
    add column usage_alert_percent  integer not null default 80 check (usage_alert_percent between 1 and 100),
    add column is_admin             boolean not null default false,
    add column deleted_at           timestamptz;

--changeset quipu:004-sessions
-- A login opens a session; each refresh spends one refresh token and issues the next (rotation). A spent token
-- presented again revokes the whole session (reuse detection). Refresh tokens are stored as SHA-256 only.
create table sessions (
    id          uuid primary key,
    account_id  uuid not null references accounts (id),
    created_at  timestamptz not null,
    ip          text,
    user_agent  text,
    revoked_at  timestamptz
);
create index sessions_account on sessions (account_id);
create table refresh_tokens (
    token_hash  bytea primary key,
    session_id  uuid not null references sessions (id) on delete cascade,
    issued_at   timestamptz not null,
    expires_at  timestamptz not null,
    used_at     timestamptz
);
create index refresh_tokens_session on refresh_tokens (session_id);

--changeset quipu:004-token-denylist splitStatements:false
-- Access tokens (by jti) and whole sessions (by sid) that must fail before their JWTs expire. Every API instance
-- keeps the unexpired rows in memory and hears of new ones on quipu_token_denylist ("jti:<value>" or "sid:<value>").
create table token_denylist (
    kind        text not null check (kind in ('jti', 'sid')),
    value       text not null,
    expires_at  timestamptz not null,
    primary key (kind, value)
);
create index token_denylist_expires on token_denylist (expires_at);
create function quipu_notify_token_denied() returns trigger language plpgsql as $$
begin
    perform pg_notify('quipu_token_denylist', new.kind || ':' || new.value);
    return null;
end;
$$;
create trigger token_denylist_added after insert on token_denylist
    for each row execute function quipu_notify_token_denied();

--changeset quipu:004-subscriptions splitStatements:false
-- Every account has exactly one current subscription (ended_at is null); ended ones are its history.
-- monthly_quota and rate_limit_rpm override the plan's numbers for this account when set (operator set-plan).
create table subscriptions (
    id              text primary key,
    account_id      uuid not null references accounts (id),
    plan            text not null,
    monthly_quota   bigint check (monthly_quota >= 0),
    rate_limit_rpm  integer check (rate_limit_rpm >= 0),
    started_at      timestamptz not null,
    renews_at       timestamptz not null,
    cancel_at       timestamptz,
    ended_at        timestamptz
);
create unique index subscriptions_current on subscriptions (account_id) where ended_at is null;
create index subscriptions_due on subscriptions (renews_at) where ended_at is null;
-- API instances cache each account's limits; any change tells them to reload that account's.
create function quipu_notify_subscription_change() returns trigger language plpgsql as $$
begin
    perform pg_notify('quipu_subscriptions', coalesce(new.account_id, old.account_id)::text);
    return null;
end;
$$;
create trigger subscriptions_changed after insert or update or delete on subscriptions
    for each row execute function quipu_notify_subscription_change();

--changeset quipu:004-usage
-- Usage is counted in memory by each API instance and added here in batches.
-- usage_counters: quota units per account and Lima calendar month (period = the month's first day).
create table usage_counters (
    account_id  uuid not null references accounts (id),
    period      date not null,
    used        bigint not null default 0,
    alerted_at  timestamptz,
    primary key (account_id, period)
);
-- rate_windows: requests per account and minute window, shared by the instances; old windows are deleted.
create table rate_windows (
    account_id    uuid not null,
    window_start  timestamptz not null,
    used          integer not null default 0,
    primary key (account_id, window_start)
);

--changeset quipu:004-audit-log
-- One row per account action (contract §8), kept 12 months. No foreign key: rows outlive a purged account,
-- anonymised.
create table audit_log (
    id          bigint generated always as identity primary key,
    account_id  uuid,
    at          timestamptz not null,
    action      text not null,
    ip          text,
    user_agent  text,
    details     jsonb not null default '{}'
);
create index audit_log_account on audit_log (account_id, at);
create index audit_log_at on audit_log (at);

--changeset quipu:004-api-keys-notify-on-state splitStatements:false
-- lastUsedAt is written in batches; only changes that decide whether a key works evict it from the caches.
drop trigger api_keys_changed on api_keys;
create trigger api_keys_changed after update of key_hash, status, scopes, expires_at or delete on api_keys
    for each row execute function quipu_notify_api_key_change();
alter table api_keys add column replaced_by uuid references api_keys (id);
