--liquibase formatted sql

--changeset quipu:031-changes-by-run
-- An API instance that hears run:<id> (below) reads that run's RUCs from the change log to drop their answers, and
-- only theirs.
create index ruc_changes_by_run on ruc_changes (load_run_id);

--changeset quipu:031-notify-run splitStatements:false
-- A writer that records every answer it changes in the change log says so for its transaction
-- (quipu.changes_logged_by_run = its run's id: the padrón's difference, the extended padrón, a list's load); the
-- registry's and the lists' triggers then notify run:<id> instead of an empty payload, so that every instance drops
-- the answers of that run's RUCs and keeps the rest. Any other writer still notifies the empty payload: drop all.
-- pg_notify folds a transaction's identical payloads into one.
create or replace function quipu_notify_registry_change() returns trigger language plpgsql as $$
declare
    run text := current_setting('quipu.changes_logged_by_run', true);
begin
    perform pg_notify('quipu_registry', case when coalesce(run, '') = '' then '' else 'run:' || run end);
    return null;
end $$;

create or replace function quipu_notify_sunat_lists_change() returns trigger language plpgsql as $$
declare
    run text := current_setting('quipu.changes_logged_by_run', true);
begin
    perform pg_notify('quipu_sunat_lists', case when coalesce(run, '') = '' then '' else 'run:' || run end);
    return null;
end $$;
