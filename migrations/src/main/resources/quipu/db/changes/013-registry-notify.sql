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

--changeset quipu:013-exchange-rates-notify splitStatements:false
-- The same for BCRP's rates and the days it had none, which answer GET /v1/tipo-cambio from memory once proven.
create function quipu_notify_exchange_rates_change() returns trigger language plpgsql as $$
begin
    perform pg_notify('quipu_exchange_rates', '');
    return null;
end $$;

create trigger exchange_rates_changed after insert or update or delete or truncate on exchange_rates
    for each statement execute function quipu_notify_exchange_rates_change();

create trigger exchange_rate_gaps_changed after insert or update or delete or truncate on exchange_rate_gaps
    for each statement execute function quipu_notify_exchange_rates_change();
