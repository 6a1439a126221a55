--liquibase formatted sql

--changeset quipu:017-search-words splitStatements:false
-- The words of the registry's normalised names (3 or more characters, as search counts words), with a trigram
-- index: search by name finds the close spellings of a word the registry does not hold here, among short distinct
-- words, instead of testing word similarity against millions of whole names (docs/decisions.md, "Close spellings").
-- A word whose names are all gone may stay until the next padrón load rebuilds the table: it then matches nothing.
create table ruc_registry_words (word text primary key);
insert into ruc_registry_words
    select distinct w from ruc_registry, unnest(string_to_array(nombre_busqueda, ' ')) w where length(w) >= 3;
create index ruc_registry_words_trgm on ruc_registry_words using gin (word gin_trgm_ops);

-- The trigger that keeps nombre_busqueda right for every writer but the padrón load (which builds both tables
-- itself) now adds the name's new words too.
create or replace function quipu_registry_search_name() returns trigger language plpgsql as $$
begin
    new.nombre_busqueda := quipu_search_name(new.razon_social);
    insert into ruc_registry_words
        select distinct w from unnest(string_to_array(new.nombre_busqueda, ' ')) w where length(w) >= 3
        on conflict do nothing;
    return new;
end $$;
