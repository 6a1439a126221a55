--liquibase formatted sql

--changeset quipu:001-accounts
create table accounts (
    id          uuid primary key,
    email       text not null,
    created_at  timestamptz not null
);
create unique index accounts_email_key on accounts (lower(email));

--changeset quipu:001-api-keys
create table api_keys (
    id            uuid primary key,
    account_id    uuid not null references accounts (id),
    name          text not null,
    prefix        text not null,
    key_hash      bytea not null unique,
    scopes        text[] not null,
    status        text not null check (status in ('active', 'grace', 'revoked')),
    created_at    timestamptz not null,
    expires_at    timestamptz,
    revoked_at    timestamptz,
    last_used_at  timestamptz
);
create index api_keys_account on api_keys (account_id);

--changeset quipu:001-api-keys-notify splitStatements:false
-- Every API instance caches keys in memory; any change to a key row tells them all to forget it.
create function quipu_notify_api_key_change() returns trigger language plpgsql as $$
begin
    perform pg_notify('quipu_api_keys', encode(coalesce(old.key_hash, new.key_hash), 'hex'));
    return null;
end;
$$;
create trigger api_keys_changed after update or delete on api_keys
    for each row execute function quipu_notify_api_key_change();

--changeset quipu:001-ruc-registry
-- The SUNAT padrón reducido. Address parts are kept as published (with '-' and '----' stored as null);
-- direccion is composed from them on read. tipo and ciiu come from the extended padrón.
create table ruc_registry (
    ruc           char(11) primary key,
    razon_social  text not null,
    estado        text,
    condicion     text,
    ubigeo        text,
    tipo_via      text,
    nombre_via    text,
    codigo_zona   text,
    tipo_zona     text,
    numero        text,
    interior      text,
    lote          text,
    departamento  text,
    manzana       text,
    kilometro     text,
    tipo          text,
    ciiu          text,
    actualizado   timestamptz not null
);

--changeset quipu:001-dataset-loads
-- One row per dataset ('padron', 'padron-extendido', 'ubigeo'): what the last complete load put in service.
create table dataset_loads (
    dataset    text primary key,
    rows       bigint not null,
    loaded_at  timestamptz not null
);

--changeset quipu:001-ubigeos
create table ubigeos (
    code          char(6) primary key,
    departamento  text not null,
    provincia     text not null,
    distrito      text not null
);

--changeset quipu:001-exchange-rates
create table exchange_rates (
    moneda        char(3) not null,
    fecha         date not null,
    compra        numeric(12, 3) not null,
    venta         numeric(12, 3) not null,
    fuente        text not null,
    capturado_en  timestamptz not null,
    primary key (moneda, fecha)
);
-- Days BCRP was asked about and had no publication for (weekends, holidays, one side n.d.),
-- so that a request for such a day is answered from the database instead of asking again.
create table exchange_rate_gaps (
    moneda      char(3) not null,
    fecha       date not null,
    checked_at  timestamptz not null,
    primary key (moneda, fecha)
);

--changeset quipu:001-events
-- The outbox: an event is written in the same transaction as the change it announces.
create table events (
    seq         bigint generated always as identity unique,
    id          text primary key,
    type        text not null,
    account_id  uuid,
    data        jsonb not null,
    created_at  timestamptz not null
);
create index events_account on events (account_id, seq);
