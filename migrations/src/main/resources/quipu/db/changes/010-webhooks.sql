--liquibase formatted sql

--changeset quipu:010-webhook-endpoints
-- A customer's webhook endpoint (contract §6). pinned_address is the address the host resolved to when the URL was
-- last set: every delivery connects there (DNS pinning). During a rotation's grace the previous secret signs too.
create table webhook_endpoints (
    id                      uuid primary key,
    account_id              uuid not null references accounts (id) on delete cascade,
    url                     text not null,
    host                    text not null,
    port                    integer not null,
    pinned_address          inet not null,
    active                  boolean not null,
    disabled_reason         text,
    secret                  text not null,
    previous_secret         text,
    previous_secret_until   timestamptz,
    created_at              timestamptz not null,
    updated_at              timestamptz not null,
    -- Auto-disable: set at the first failed attempt after a success (or after creation), cleared by a success.
    failing_since           timestamptz
);
create index webhook_endpoints_account on webhook_endpoints (account_id, created_at);

-- The event types an endpoint subscribes to; since_seq is the outbox's last event when the type was added, so an
-- endpoint receives only events emitted after it subscribed.
create table webhook_subscriptions (
    endpoint_id  uuid not null references webhook_endpoints (id) on delete cascade,
    event_type   text not null,
    since_seq    bigint not null,
    primary key (endpoint_id, event_type)
);
create index webhook_subscriptions_type on webhook_subscriptions (event_type);

--changeset quipu:010-events-fan-out
-- Outbox rows not yet turned into deliveries. Rows written before webhooks existed had no endpoint to go to.
alter table events add column fanned_out_at timestamptz;
update events set fanned_out_at = created_at;
create index events_pending_fan_out on events (seq) where fanned_out_at is null;

--changeset quipu:010-webhook-deliveries
-- One event for one endpoint. body is the event's envelope, serialised once: every attempt sends these bytes.
-- A worker claims a due delivery by setting lease_owner and lease_until; an attempt cut short by a crash is claimed
-- again once its lease has passed.
create table webhook_deliveries (
    id               text primary key,
    endpoint_id      uuid not null references webhook_endpoints (id) on delete cascade,
    event_id         text not null,
    event_type       text not null,
    body             bytea not null,
    status           text not null check (status in ('pending', 'retrying', 'delivered', 'failed_permanent')),
    attempts         integer not null default 0,
    next_attempt_at  timestamptz,
    lease_owner      uuid,
    lease_until      timestamptz,
    last_attempt_at  timestamptz,
    response_code    integer,
    latency_ms       integer,
    error            text,
    created_at       timestamptz not null,
    unique (endpoint_id, event_id)
);
create index webhook_deliveries_due on webhook_deliveries (next_attempt_at) where status in ('pending', 'retrying');
create index webhook_deliveries_history on webhook_deliveries (endpoint_id, created_at desc, id desc);
create index webhook_deliveries_created on webhook_deliveries (created_at);

-- Each attempt of a delivery; id is the attempt's x-quipu-delivery header.
create table webhook_attempts (
    id             text primary key,
    delivery_id    text not null references webhook_deliveries (id) on delete cascade,
    attempted_at   timestamptz not null,
    response_code  integer,
    latency_ms     integer not null,
    error          text,
    response_body  text
);
create index webhook_attempts_delivery on webhook_attempts (delivery_id, attempted_at);

--changeset quipu:010-webhooks-notify splitStatements:false
-- New outbox events and new deliveries wake the delivery workers of every instance within a second; a timer
-- catches whatever a lost notification missed. One notification per statement, not per row.
create function quipu_notify_webhooks() returns trigger language plpgsql as $$
begin
    perform pg_notify('quipu_webhooks', tg_table_name);
    return null;
end;
$$;
create trigger events_added after insert on events
    for each statement execute function quipu_notify_webhooks();
create trigger webhook_deliveries_added after insert on webhook_deliveries
    for each statement execute function quipu_notify_webhooks();

--changeset quipu:010-webhook-deliveries-due-by-endpoint
-- Claims take each endpoint's due deliveries in turn (at most its room), so one endpoint's backlog is never scanned
-- on behalf of the others.
create index webhook_deliveries_due_by_endpoint on webhook_deliveries (endpoint_id, next_attempt_at)
    where status in ('pending', 'retrying');
