--liquibase formatted sql

--changeset quipu:018-audit-others-data
-- Audit rows keep nothing about someone other than the account holder, nor a value a rectification replaces
-- (docs/data-inventory.md): a failed login and a replayed refresh token may come from another person, so those rows
-- keep when and what, not the request's address or user agent; a signup row no longer copies the email, which
-- PATCH /v1/me can replace (the account's row holds the current one). Rows written before this change are cleared
-- the same way.
update audit_log set ip = null, user_agent = null
 where action in ('login.failed', 'session.reuse_detected') and (ip is not null or user_agent is not null);
update audit_log set details = details - 'email'
 where action = 'signup' and details -> 'email' is not null;
