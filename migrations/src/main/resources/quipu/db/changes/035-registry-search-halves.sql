--liquibase formatted sql

--changeset quipu:035-registry-search-halves splitStatements:false
-- The trigram index of search by name in two halves by the RUC's tenth digit (pe.quipu.core.ruc.RegistrySearch.HALVES):
-- PostgreSQL 17 builds a GIN index on one core, and a padrón load that builds a new registry builds the two halves at
-- once, on two connections. Searches read both halves. Built here once, on one connection, for the registry in
-- service, unless it has no search index (a load with search.enabled false built it).
do $$
begin
    if to_regclass('ruc_registry_search') is not null then
        drop index ruc_registry_search;
        create index ruc_registry_search_0 on ruc_registry using gin (nombre_busqueda gin_trgm_ops)
            where substr(ruc, 10, 1) < '5';
        create index ruc_registry_search_1 on ruc_registry using gin (nombre_busqueda gin_trgm_ops)
            where substr(ruc, 10, 1) >= '5';
    end if;
end $$;
