--liquibase formatted sql

--changeset quipu:008-metering-instances
-- Every API instance that meters says here, about once a second, that it is alive; a graceful stop deletes its
-- row. How many are alive decides how far one instance may count ahead of the shared totals before it must sync
-- (docs/decisions.md, Metering).
create table metering_instances (
    id       uuid primary key,
    seen_at  timestamptz not null
);

--changeset quipu:008-rate-windows-by-start
-- Minute windows are deleted by age, across accounts.
create index rate_windows_start on rate_windows (window_start);
