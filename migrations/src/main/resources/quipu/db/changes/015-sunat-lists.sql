--liquibase formatted sql

--changeset quipu:015-sunat-padrones
-- SUNAT's four lists (contract §10): agentes de retención, buenos contribuyentes, agentes de percepción (venta
-- interna) and agentes de percepción de combustibles. One row per RUC and list. Each list's job replaces that
-- list's rows in one transaction (delete, insert from its staging table, dataset_loads), so readers see the old
-- list until the commit, never a half-loaded one. The key serves the lookups: every list of a RUC, in list order.
create table sunat_padrones (
    ruc         char(11) not null,
    padron      text not null check (padron in ('agentes_retencion', 'buenos_contribuyentes', 'agentes_percepcion',
                                                'agentes_percepcion_combustibles')),
    desde       date not null,
    resolucion  text,
    primary key (ruc, padron)
);

--changeset quipu:015-locales-anexos
-- SUNAT's padrón reducido de locales anexos: a RUC's other premises, several per RUC. Address parts are kept as
-- published ('-' and '----' stored as null) and composed on read like the registry's direccion (contract §3). The
-- locales-anexos job builds a new table from its staging table and swaps it in, as the padron job does, since the
-- real file holds millions of lines; its columns follow this table's, so the API's statements keep their shape.
create table locales_anexos (
    ruc           char(11) not null,
    ubigeo        text,
    tipo_via      text,
    nombre_via    text,
    codigo_zona   text,
    tipo_zona     text,
    numero        text,
    kilometro     text,
    interior      text,
    lote          text,
    departamento  text,
    manzana       text
);
create index locales_anexos_ruc on locales_anexos (ruc);

--changeset quipu:015-sunat-lists-notify splitStatements:false
-- The API keeps answers that include lists and premises in memory; every change to either table tells every
-- instance at commit, as changeset 013 does for the registry, on a channel of its own so that a list's load does
-- not drop the answers without them. The locales-anexos job gives its new table this trigger and notifies for the
-- swap itself.
create function quipu_notify_sunat_lists_change() returns trigger language plpgsql as $$
begin
    perform pg_notify('quipu_sunat_lists', '');
    return null;
end $$;

create trigger sunat_padrones_changed after insert or update or delete or truncate on sunat_padrones
    for each statement execute function quipu_notify_sunat_lists_change();

create trigger locales_anexos_changed after insert or update or delete or truncate on locales_anexos
    for each statement execute function quipu_notify_sunat_lists_change();
