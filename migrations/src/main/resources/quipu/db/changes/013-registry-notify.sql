--liquibase formatted sql

--changeset quipu:013-registry-notify splitStatements:false
-- Every change to the RUC registry tells the API instances, which keep recent answers in memory (issue 13): one
-- notification per statement, whatever it touched, delivered at commit. The padrón job builds a new table and
-- swaps it in; it creates this same trigger on the new table and notifies for the swap itself.
create function quipu_notify_registry_change() returns trigger language plpgsql as $$
begin
    perform pg_notify('quipu_registry', '');
    return null;
end $$;

create trigger ruc_registry_changed after insert or update or delete or truncate on ruc_registry
    for each statement execute function quipu_notify_registry_change();
