--liquibase formatted sql

--changeset quipu:020-api-key-insert-notify
-- Every instance also remembers, for a few seconds, the hashes of keys it was shown and did not find
-- (docs/decisions.md, "Unknown keys"). A key row written after its hash was refused (an import, a restore, SQL by
-- hand) must work at once on every instance, so an insert notifies too, with the new key's hash.
create trigger api_keys_inserted after insert on api_keys
    for each row execute function quipu_notify_api_key_change();
