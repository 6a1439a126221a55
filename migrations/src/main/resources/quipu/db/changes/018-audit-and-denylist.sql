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

--changeset quipu:018-token-denylist-extended
-- Each instance keeps the denylist in memory with each row's expiry and, after its start, reads only the rows it is
-- notified of (TokenDenylist). A deny of a row that exists may push its expiry later (insert … on conflict do
-- update): that is announced too, with the same payload, so that no instance forgets the row too early.
create trigger token_denylist_extended after update of expires_at on token_denylist
    for each row when (new.expires_at > old.expires_at) execute function quipu_notify_token_denied();
