--liquibase formatted sql

--changeset quipu:016-registry-search splitStatements:false
-- Search by name (GET /v1/ruc?q=, contract §10) inside PostgreSQL: a normalised copy of razon_social and a trigram
-- index over it. Both extensions ship with PostgreSQL's contrib (the embedded server has them; an external server
-- needs PostgreSQL 14+ with contrib) and are trusted, so the database owner may create them.
create extension if not exists pg_trgm;
create extension if not exists unaccent;

-- The one normalisation, used by the load, the trigger below and every search: lower case, accents removed the way
-- unaccent's default rules remove them (Ñ becomes N, so ÑAÑEZ, Ñañez and NANEZ are one name), dots and apostrophes
-- dropped (S.A.C. is sac, D'ONOFRIO is donofrio), any other run of non-alphanumerics one space, trimmed.
-- A SQL-standard body is parsed now: the unaccent dictionary and functions are bound here, not looked up on each
-- call through whatever search_path the caller has. STABLE, as unaccent is (its rules file could change): the
-- planner then inlines the body into the calling statement instead of running a SQL function per row (an
-- IMMUTABLE wrapper of a STABLE function is never inlined), which matters over millions of names in the padrón
-- load (docs/decisions.md). The value is stored in a column, not used as an index expression, so the function need
-- not be IMMUTABLE.
create function quipu_search_name(name text) returns text
    language sql stable strict parallel safe
    return btrim(regexp_replace(regexp_replace(lower(unaccent('unaccent'::regdictionary, name)),
                                               '[.'']+', '', 'g'),
                                '[^a-z0-9]+', ' ', 'g'));

-- Every writer keeps the column right without knowing of it: the ETL's small upserts and the bundled sample
-- insert rows without it, padron-extendido updates other columns (the trigger does not fire), an operator's
-- UPDATE of razon_social recomputes it, and a direct write to the column is overwritten. The padrón load computes
-- it in its CREATE TABLE AS and gives the new table this same trigger (pe.quipu.core.ruc.RegistrySearch).
create function quipu_registry_search_name() returns trigger language plpgsql as $$
begin
    new.nombre_busqueda := quipu_search_name(new.razon_social);
    return new;
end $$;

alter table ruc_registry add column nombre_busqueda text;
update ruc_registry set nombre_busqueda = quipu_search_name(razon_social);
alter table ruc_registry alter column nombre_busqueda set not null;

create trigger ruc_registry_search_name before insert or update of razon_social, nombre_busqueda on ruc_registry
    for each row execute function quipu_registry_search_name();

create index ruc_registry_search on ruc_registry using gin (nombre_busqueda gin_trgm_ops);
