--liquibase formatted sql

--changeset quipu:012-email-identity
-- The e-mail address's normal form (pe.quipu.api.domain.EmailIdentity: IDNA ASCII domain, NFKC case-folded local
-- part), which identifies an account: unique, and what login and the operator's look-ups compare. lower() under the C
-- locale folds ASCII only, so 'ÁNA@x.pe' and 'ána@x.pe' were two accounts.
-- PostgreSQL cannot compute the same form (no IDNA, and lower() depends on the collation), so this changeset only adds
-- the column; the API fills every row still null at each start, in Java, before it serves (EmailIdentityBackfill).
-- Null is also what a row keeps whose form another account already holds (from before this change): such a row is
-- still found by lower(email), as before, and the operator is warned at start with its id.
alter table accounts add column email_identity text;
create unique index accounts_email_identity_key on accounts (email_identity);
