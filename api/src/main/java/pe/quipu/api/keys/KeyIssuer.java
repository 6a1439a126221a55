package pe.quipu.api.keys;

import org.jdbi.v3.core.Handle;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.domain.DomainException;
import pe.quipu.api.domain.Text;
import pe.quipu.core.accounts.EmailIdentity;
import pe.quipu.api.plans.Subscriptions;
import pe.quipu.core.events.EventOutbox;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * Creates, rotates and revokes API keys on the caller's handle and transaction, and announces each change with its
 * event ({@code key.created}, {@code key.rotated}, {@code key.revoked}) in the same transaction: the one place that
 * writes a key's state, for the API and the operator commands alike. The secret leaves only through
 * {@link IssuedKey}.
 *
 * <p>A key <em>works</em> while it is {@code active}, or in {@code grace} before its {@code expires_at}.
 */
public final class KeyIssuer {

    private final Clock clock;
    private final EventOutbox outbox;

    public KeyIssuer(Clock clock, EventOutbox outbox) {
        this.clock = clock;
        this.outbox = outbox;
    }

    /** The account with this email, created if new on the free plan (emails compare case-insensitively). */
    public UUID accountFor(Handle handle, String email) {
        KeyRows rows = handle.attach(KeyRows.class);
        Optional<KeyRows.AccountState> existing = rows.accountByEmail(email, EmailIdentity.of(email));
        if (existing.isPresent()) {
            if (existing.get().deletedAt() != null) {
                // A deleted account gets no new key: it waits for its purge, after which the email is free again.
                throw new DomainException.Conflict(Text.of("keys.email_of_deleted_account", existing.get().deletedAt()));
            }
            return existing.get().id();
        }
        UUID id = UUID.randomUUID();
        if (rows.insertAccount(id, email, EmailIdentity.of(email), clock.instant()) == 1) {
            Subscriptions.openFree(handle, id, clock.instant());
            return id;
        }
        return accountFor(handle, email);
    }

    /** A new active key; emits {@code key.created} {@code {keyId, name, prefix, scopes}}. */
    public IssuedKey issue(Handle handle, UUID accountId, String name, Set<Scope> scopes) {
        IssuedKey key = insert(handle, accountId, name, scopes.stream().map(Scope::wireName).sorted().toList());
        outbox.append(handle, "key.created", accountId, eventData(key.id(), key.name(), key.secret().displayPrefix(),
                key.scopes()));
        return key;
    }

    /** How many keys of the account work now (active, or in grace before it ends). */
    public int countWorking(Handle handle, UUID accountId) {
        return handle.attach(KeyRows.class).countWorking(accountId, clock.instant());
    }

    /**
     * Replaces the account's active key {@code keyId} by a new key with the same name and scopes. The old key
     * enters {@code grace}: it keeps working for {@code grace}, then fails. Emits {@code key.rotated} with the new
     * key's {@code {keyId, name, prefix, scopes}} plus {@code previousKeyId}, {@code previousPrefix} and
     * {@code previousExpiresAt}; no {@code key.created}.
     */
    public Rotation rotate(Handle handle, UUID accountId, UUID keyId, Duration grace) {
        KeyRows rows = handle.attach(KeyRows.class);
        Optional<KeyRows.Rotated> found = rows.lockForRotation(keyId, accountId);
        if (found.isEmpty()) {
            return new Rotation.NotFound();
        }
        KeyRows.Rotated old = found.get();
        if (!"active".equals(old.status())) {
            return new Rotation.NotActive(old.status());
        }
        IssuedKey key = insert(handle, accountId, old.name(), old.scopes());
        Instant expiresAt = key.createdAt().plus(grace);
        rows.enterGrace(keyId, expiresAt, key.id());
        Map<String, Object> data = eventData(key.id(), old.name(), key.secret().displayPrefix(), old.scopes());
        data.put("previousKeyId", keyId.toString());
        data.put("previousPrefix", old.prefix());
        data.put("previousExpiresAt", expiresAt.toString());
        outbox.append(handle, "key.rotated", accountId, data);
        return new Rotation.Rotated(key, keyId, old.prefix(), old.keyHash(), expiresAt);
    }

    /**
     * Revokes the account's key {@code keyId} if it still works; empty when it does not (unknown, another
     * account's, already revoked, or past its grace).
     */
    public Optional<RevokedKey> revoke(Handle handle, UUID accountId, UUID keyId) {
        return announced(handle, handle.attach(KeyRows.class).revoke(keyId, accountId, now()));
    }

    /**
     * Revokes the working key with this display prefix (the operator's {@code revoke-key}); empty when no
     * working key has it.
     */
    public Optional<RevokedKey> revokeByPrefix(Handle handle, String prefix) {
        return announced(handle, handle.attach(KeyRows.class).revokeByPrefix(prefix, now()));
    }

    /**
     * The one revocation: the key fails from the next request on in every API instance (the row's trigger
     * notifies them), and {@code key.revoked} {@code {keyId, name, prefix, scopes}} is emitted.
     */
    private Optional<RevokedKey> announced(Handle handle, List<RevokedKey> revoked) {
        if (revoked.isEmpty()) {
            return Optional.empty();
        }
        if (revoked.size() > 1) {
            throw new IllegalStateException("more than one key matched one revocation");
        }
        RevokedKey key = revoked.getFirst();
        outbox.append(handle, "key.revoked", key.accountId(), eventData(key.id(), key.name(), key.prefix(),
                key.scopes()));
        return Optional.of(key);
    }

    private IssuedKey insert(Handle handle, UUID accountId, String name, List<String> scopeNames) {
        ApiKeySecret secret = ApiKeySecret.generate();
        UUID id = UUID.randomUUID();
        Instant now = now();
        handle.attach(KeyRows.class).insertKey(id, accountId, name, secret.displayPrefix(), secret.hash(),
                scopeNames.toArray(String[]::new), now);
        return new IssuedKey(id, accountId, name, secret, scopeNames, now);
    }

    /** Now, to the microsecond PostgreSQL keeps, so that an answer shows the instant a later read will. */
    private Instant now() {
        return clock.instant().truncatedTo(ChronoUnit.MICROS);
    }

    /**
     * {@code {keyId, name, prefix, scopes}}: the data of the key.* events and what an audit row says of a key,
     * never its secret (a mutable map: callers may add to it).
     */
    private static Map<String, Object> eventData(UUID keyId, String name, String prefix, List<String> scopes) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("keyId", keyId.toString());
        data.put("name", name);
        data.put("prefix", prefix);
        data.put("scopes", scopes);
        return data;
    }

    /** The SQL of keys, and of the accounts the operator's {@code create-key} opens. */
    interface KeyRows {
        /** The SQL condition for a key that still works at {@code :now}. */
        String WORKS = "(status = 'active' or (status = 'grace' and expires_at > :now))";

        record AccountState(UUID id, Instant deletedAt) {
        }

        @SqlQuery("select id, deleted_at from accounts where " + EmailIdentity.MATCHES
                + EmailIdentity.EXACT_FIRST)
        @RegisterConstructorMapper(AccountState.class)
        Optional<AccountState> accountByEmail(String email, String identity);

        @SqlUpdate("""
                insert into accounts (id, email, email_identity, created_at) values (:id, :email, :identity, :now)
                    on conflict do nothing""")
        int insertAccount(UUID id, String email, String identity, Instant now);

        @SqlQuery("select count(*) from api_keys where account_id = :accountId and " + WORKS)
        int countWorking(UUID accountId, Instant now);

        @SqlUpdate("""
                insert into api_keys (id, account_id, name, prefix, key_hash, scopes, status, created_at)
                values (:id, :accountId, :name, :prefix, :keyHash, :scopes, 'active', :createdAt)""")
        void insertKey(UUID id, UUID accountId, String name, String prefix, byte[] keyHash, String[] scopes,
                       Instant createdAt);

        record Rotated(String name, String prefix, byte[] keyHash, List<String> scopes, String status) {
        }

        @SqlQuery("""
                select name, prefix, key_hash, scopes, status from api_keys
                 where id = :id and account_id = :accountId for update""")
        @RegisterConstructorMapper(Rotated.class)
        Optional<Rotated> lockForRotation(UUID id, UUID accountId);

        @SqlUpdate("update api_keys set status = 'grace', expires_at = :expiresAt, replaced_by = :replacedBy where id = :id")
        void enterGrace(UUID id, Instant expiresAt, UUID replacedBy);

        String REVOKE = "update api_keys set status = 'revoked', revoked_at = :now where ";
        String WORKING_RETURNING = " and " + WORKS
                + " returning id, account_id, name, prefix, scopes, key_hash, revoked_at";

        @SqlQuery(REVOKE + "id = :id and account_id = :accountId" + WORKING_RETURNING)
        @RegisterConstructorMapper(RevokedKey.class)
        List<RevokedKey> revoke(UUID id, UUID accountId, Instant now);

        @SqlQuery(REVOKE + "prefix = :prefix" + WORKING_RETURNING)
        @RegisterConstructorMapper(RevokedKey.class)
        List<RevokedKey> revokeByPrefix(String prefix, Instant now);
    }

    /** A freshly issued key: the only object that holds its secret. */
    public record IssuedKey(UUID id, UUID accountId, String name, ApiKeySecret secret, List<String> scopes,
                            Instant createdAt) {
        /** {@code {keyId, name, prefix, scopes}} for the audit log (a mutable map: callers may add to it). */
        public Map<String, Object> auditDetails() {
            return eventData(id, name, secret.displayPrefix(), scopes);
        }
    }

    /** A key just revoked; {@code keyHash} lets the revoking instance forget it at once. */
    public record RevokedKey(UUID id, UUID accountId, String name, String prefix, List<String> scopes,
                             byte[] keyHash, Instant revokedAt) {
        /** {@code {keyId, name, prefix, scopes}} for the audit log. */
        public Map<String, Object> auditDetails() {
            return eventData(id, name, prefix, scopes);
        }
    }

    /** What {@link #rotate} did. */
    public sealed interface Rotation {
        /** The new key, and the old one now in grace until {@code previousExpiresAt}. */
        record Rotated(IssuedKey key, UUID previousKeyId, String previousPrefix, byte[] previousKeyHash,
                       Instant previousExpiresAt)
                implements Rotation {
        }

        /** The key is in grace or revoked: only an active key is rotated. */
        record NotActive(String status) implements Rotation {
        }

        /** No key with this id belongs to the account. */
        record NotFound() implements Rotation {
        }
    }
}
