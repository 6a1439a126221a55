--liquibase formatted sql

--changeset quipu:003-registry-content-hash
-- A fingerprint of each record's padrón content (pe.quipu.core.ruc.ContentHash), so that the padron job tells an
-- unchanged record (which keeps actualizado and its ETag) from a changed one by comparing one column.
alter table ruc_registry add column content_hash bigint;
update ruc_registry set content_hash = ('x' || left(md5(
    coalesce(razon_social, chr(30)) || chr(31) || coalesce(estado, chr(30)) || chr(31) ||
    coalesce(condicion, chr(30)) || chr(31) || coalesce(ubigeo, chr(30)) || chr(31) ||
    coalesce(tipo_via, chr(30)) || chr(31) || coalesce(nombre_via, chr(30)) || chr(31) ||
    coalesce(codigo_zona, chr(30)) || chr(31) || coalesce(tipo_zona, chr(30)) || chr(31) ||
    coalesce(numero, chr(30)) || chr(31) || coalesce(interior, chr(30)) || chr(31) ||
    coalesce(lote, chr(30)) || chr(31) || coalesce(departamento, chr(30)) || chr(31) ||
    coalesce(manzana, chr(30)) || chr(31) || coalesce(kilometro, chr(30))), 16))::bit(64)::bigint;
