--liquibase formatted sql

--changeset quipu:020-api-key-insert-notify splitStatements:false
-- Every instance also remembers, for a few seconds, the hashes of keys it was shown and did not find
-- (docs/decisions.md, "Unknown keys"). A key row written after its hash was refused (an import, a restore, SQL by
-- hand) must work at once on every instance, so an insert notifies too: 'inserted:' and the new key's hash, which
-- forgets the miss and leaves a cached key alone (a row just inserted cannot have made it stale).
create function quipu_notify_api_key_inserted() returns trigger language plpgsql as $$
begin
    perform pg_notify('quipu_api_keys', 'inserted:' || encode(new.key_hash, 'hex'));
    return null;
end;
$$;
create trigger api_keys_inserted after insert on api_keys
    for each row execute function quipu_notify_api_key_inserted();
