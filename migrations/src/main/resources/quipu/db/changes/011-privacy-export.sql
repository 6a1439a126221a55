--liquibase formatted sql

--changeset quipu:011-privacy-export
-- When the account holder last exported their data (GET /v1/me/export): one export per 24 hours, across instances.
-- A column of the account, so that it goes wherever the account goes (the purge) and shows in the export's user.
alter table accounts add column last_exported_at timestamptz;
