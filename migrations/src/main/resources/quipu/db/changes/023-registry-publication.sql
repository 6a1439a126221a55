--liquibase formatted sql

--changeset quipu:023-registry-words-counted splitStatements:false
-- The padrón load now publishes the day's differences into the registry in service (docs/decisions.md, "Registry
-- changes") instead of building a new registry and a new words table each day, so nothing rebuilds
-- ruc_registry_words any more: it must stay exact by itself. Each word now carries how many times it occurs in the
-- registry's normalised names (a name holding a word twice counts it twice, the same rule both ways); a word is in
-- the table exactly when that count is above zero.
alter table ruc_registry_words add column occurrences bigint;
delete from ruc_registry_words;
insert into ruc_registry_words (word, occurrences)
    select w, count(*) from ruc_registry, unnest(string_to_array(nombre_busqueda, ' ')) w
     where length(w) >= 3 group by w;
alter table ruc_registry_words alter column occurrences set not null;

-- Applies the words of names that went (gone) and came (come): one statement per batch of names, whatever their
-- number, not one per row. Words are written in order, so two writers at once lock them in the same order.
create function quipu_registry_words_change(gone text[], come text[]) returns void language plpgsql as $$
declare
    emptied text[];
begin
    with delta as (
        select w, sum(n) as n
          from (select w, -1 as n from unnest(gone) g, unnest(string_to_array(g, ' ')) w where length(w) >= 3
                union all
                select w, 1 from unnest(come) c, unnest(string_to_array(c, ' ')) w where length(w) >= 3) x
         group by w
        having sum(n) <> 0),
    counted as (
        insert into ruc_registry_words as t (word, occurrences)
        select w, n from delta order by w
            on conflict (word) do update set occurrences = t.occurrences + excluded.occurrences
        returning word, occurrences)
    select array_agg(word) into emptied from counted where occurrences <= 0;
    if emptied is not null then
        delete from ruc_registry_words where word = any(emptied);
    end if;
end $$;

-- The padrón's publication sets quipu.registry_publication to 'on' for its own transaction and keeps the names and
-- the words right itself, set-based, from its change set (pe.quipu.core.ruc.RegistrySearch): the triggers below step
-- aside for it and serve every other writer (sample-padron, the small upserts, an operator's SQL).
create or replace function quipu_registry_search_name() returns trigger language plpgsql as $$
begin
    new.nombre_busqueda := quipu_search_name(new.razon_social);
    return new;
end $$;

drop trigger ruc_registry_search_name on ruc_registry;
create trigger ruc_registry_search_name before insert or update of razon_social, nombre_busqueda on ruc_registry
    for each row when (current_setting('quipu.registry_publication', true) is distinct from 'on')
    execute function quipu_registry_search_name();

create function quipu_registry_words_inserted() returns trigger language plpgsql as $$
begin
    perform quipu_registry_words_change(null, array(select nombre_busqueda from registry_inserted));
    return null;
end $$;

create function quipu_registry_words_deleted() returns trigger language plpgsql as $$
begin
    perform quipu_registry_words_change(array(select nombre_busqueda from registry_deleted), null);
    return null;
end $$;

-- An update that renames is a row trigger, not a statement's transition tables: padron-extendido updates every
-- record's tipo and ciiu, and transition tables would copy each of those rows for nothing.
create function quipu_registry_words_renamed() returns trigger language plpgsql as $$
begin
    perform quipu_registry_words_change(array[old.nombre_busqueda], array[new.nombre_busqueda]);
    return null;
end $$;

create function quipu_registry_words_truncated() returns trigger language plpgsql as $$
begin
    delete from ruc_registry_words;
    return null;
end $$;

create trigger ruc_registry_words_inserted after insert on ruc_registry
    referencing new table as registry_inserted for each statement
    when (current_setting('quipu.registry_publication', true) is distinct from 'on')
    execute function quipu_registry_words_inserted();
create trigger ruc_registry_words_deleted after delete on ruc_registry
    referencing old table as registry_deleted for each statement
    when (current_setting('quipu.registry_publication', true) is distinct from 'on')
    execute function quipu_registry_words_deleted();
create trigger ruc_registry_words_renamed after update of razon_social, nombre_busqueda on ruc_registry
    for each row
    when (old.nombre_busqueda is distinct from new.nombre_busqueda
          and current_setting('quipu.registry_publication', true) is distinct from 'on')
    execute function quipu_registry_words_renamed();
create trigger ruc_registry_words_truncated after truncate on ruc_registry
    for each statement execute function quipu_registry_words_truncated();

--changeset quipu:023-registry-fillfactor
-- Room on each page for a changed record's new version beside the old one: an update that changes no indexed column
-- (estado, condición, the address: most of a day's changes) then stays on its page and adds no entry to the primary
-- key or the trigram index (a HOT update). The padrón load creates every new registry with the same setting; pages
-- written before this keep theirs until the next rebuild.
alter table ruc_registry set (fillfactor = 90);
