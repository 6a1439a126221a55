--liquibase formatted sql

--changeset quipu:034-registry-line-hash
-- The fingerprint of the padrón line each record was last loaded from (its Latin-1 bytes: pe.quipu.etl.padron.LineHash).
-- A reload parses and sends to the database only the lines that are not byte for byte the ones loaded before
-- (pe.quipu.etl.padron.RegistryLines). Null where no padrón line is known for the record (loaded before this changeset,
-- or written by another writer): its next line is compared by content, as every line was before.
alter table ruc_registry add column line_hash bigint;
