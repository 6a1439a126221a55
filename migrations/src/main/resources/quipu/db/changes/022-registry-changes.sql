--liquibase formatted sql

--changeset quipu:022-registry-changes splitStatements:false
-- The registry's change log (contract §11): one row per change a load made, written in the transaction that publishes
-- it. kind is added, removed, changed (changes: {field: {from, to}} for exactly the spec fields that differ) or
-- padrones (padrones: {joined: [names], left: [names]}); load_run_id is the ETL run's id (the runId of its etl.run.*
-- events); at is the load's publication time, for a padrón or extended-padrón change also the record's new
-- actualizado. Kept for changes.retention (pruned daily by the API), read newest first per RUC (history) and in
-- order of time (watchlists).
create table ruc_changes (
    id          bigserial   primary key,
    ruc         char(11)    not null,
    kind        text        not null check (kind in ('added', 'removed', 'changed', 'padrones')),
    changes     jsonb,
    padrones    jsonb,
    load_run_id bigint      not null,
    at          timestamptz not null
);
create index ruc_changes_by_ruc on ruc_changes (ruc, at desc, id desc);
create index ruc_changes_by_at on ruc_changes (at, id);

-- What the last publication of a dataset changed, beside its size and time (/v1/status); null where a load does not
-- count changes (the first load into an empty registry, the other datasets).
alter table dataset_loads add column added bigint, add column changed bigint, add column removed bigint;

-- The fiscal address as the API composes it (pe.quipu.core.ruc.Direccion, contract §3), for the change log's
-- direccion {from, to}: the parts in the contract's order, empty ones left out, labels before NÚMERO, INTERIOR,
-- DEPARTAMENTO, MANZANA, LOTE and KILÓMETRO, one space between parts, null when every part is empty. Parts are
-- trimmed of the characters Java's String.strip removes in Latin-1 (tab, line feed, vertical tab, form feed,
-- carriage return, the four separators, space), as the padrón's are.
create function quipu_direccion(tipo_via text, nombre_via text, numero text, interior text, departamento text,
                                manzana text, lote text, kilometro text, codigo_zona text, tipo_zona text)
    returns text language sql immutable parallel safe
    return nullif(concat_ws(' ',
        nullif(btrim(tipo_via, E' \t\n\u000b\f\r\u001c\u001d\u001e\u001f'), ''),
        nullif(btrim(nombre_via, E' \t\n\u000b\f\r\u001c\u001d\u001e\u001f'), ''),
        'NRO. ' || nullif(btrim(numero, E' \t\n\u000b\f\r\u001c\u001d\u001e\u001f'), ''),
        'INT. ' || nullif(btrim(interior, E' \t\n\u000b\f\r\u001c\u001d\u001e\u001f'), ''),
        'DPTO. ' || nullif(btrim(departamento, E' \t\n\u000b\f\r\u001c\u001d\u001e\u001f'), ''),
        'MZA. ' || nullif(btrim(manzana, E' \t\n\u000b\f\r\u001c\u001d\u001e\u001f'), ''),
        'LOTE. ' || nullif(btrim(lote, E' \t\n\u000b\f\r\u001c\u001d\u001e\u001f'), ''),
        'KM. ' || nullif(btrim(kilometro, E' \t\n\u000b\f\r\u001c\u001d\u001e\u001f'), ''),
        nullif(btrim(codigo_zona, E' \t\n\u000b\f\r\u001c\u001d\u001e\u001f'), ''),
        nullif(btrim(tipo_zona, E' \t\n\u000b\f\r\u001c\u001d\u001e\u001f'), '')), '');
