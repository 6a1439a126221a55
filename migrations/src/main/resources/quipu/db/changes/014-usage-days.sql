--liquibase formatted sql

--changeset quipu:014-usage-days
-- usage_days: metered requests and quota units per account and Lima day (GET /v1/usage/daily). Counted in memory by
-- each API instance and added here by the metering sync, in the transaction that adds to usage_counters: no request
-- writes here. requests: metered requests answered, whatever the answer, but for 429s (what the per-minute rate
-- counts); units: the quota units they spent (what usage_counters counts by month). Kept while the account lives,
-- like usage_counters; the purge deletes them.
create table usage_days (
    account_id  uuid not null references accounts (id),
    day         date not null,
    requests    bigint not null default 0,
    units       bigint not null default 0,
    primary key (account_id, day)
);
