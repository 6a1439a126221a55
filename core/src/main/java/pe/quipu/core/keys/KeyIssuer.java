package pe.quipu.core.keys;

import pe.quipu.core.accounts.Subscriptions;
import pe.quipu.core.events.EventOutbox;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
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
 * Creates, rotates and revokes API keys on the caller's connection and transaction, and announces each change
 * with its event ({@code key.created}, {@code key.rotated}, {@code key.revoked}) in the same transaction: the one
 * place that writes a key's state, for the API and the operator commands alike. The secret leaves only through
 * {@link IssuedKey}.
 *
 * <p>A key <em>works</em> while it is {@code active}, or in {@code grace} before its {@code expires_at}.
 */
public final class KeyIssuer {

    /** The SQL condition for a key that still works at the instant bound to its one parameter. */
    static final String WORKS = "(status = 'active' or (status = 'grace' and expires_at > ?))";

    private final Clock clock;
    private final EventOutbox outbox;

    public KeyIssuer(Clock clock, EventOutbox outbox) {
        this.clock = clock;
        this.outbox = outbox;
    }

    /** The account with this email, created if new on the free plan (emails compare case-insensitively). */
    public UUID accountFor(Connection c, String email) throws SQLException {
        try (PreparedStatement find = c.prepareStatement("select id from accounts where lower(email) = lower(?)")) {
            find.setString(1, email);
            try (ResultSet rs = find.executeQuery()) {
                if (rs.next()) {
                    return rs.getObject(1, UUID.class);
                }
            }
        }
        UUID id = UUID.randomUUID();
        try (PreparedStatement insert = c.prepareStatement(
                "insert into accounts (id, email, created_at) values (?, ?, ?) on conflict do nothing")) {
            insert.setObject(1, id);
            insert.setString(2, email);
            insert.setTimestamp(3, Timestamp.from(clock.instant()));
            if (insert.executeUpdate() == 1) {
                Subscriptions.openFree(c, id, clock.instant());
                return id;
            }
        }
        return accountFor(c, email);
    }

    /** A new active key; emits {@code key.created} {@code {keyId, name, prefix, scopes}}. */
    public IssuedKey issue(Connection c, UUID accountId, String name, Set<Scope> scopes) throws SQLException {
        IssuedKey key = insert(c, accountId, name, scopes.stream().map(Scope::wireName).sorted().toList());
        outbox.append(c, "key.created", accountId, eventData(key.id(), key.name(), key.secret().displayPrefix(),
                key.scopes()));
        return key;
    }

    /** How many keys of the account work now (active, or in grace before it ends). */
    public int countWorking(Connection c, UUID accountId) throws SQLException {
        try (PreparedStatement count = c.prepareStatement(
                "select count(*) from api_keys where account_id = ? and " + WORKS)) {
            count.setObject(1, accountId);
            count.setTimestamp(2, Timestamp.from(clock.instant()));
            try (ResultSet rs = count.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    /**
     * Replaces the account's active key {@code keyId} by a new key with the same name and scopes. The old key
     * enters {@code grace}: it keeps working for {@code grace}, then fails. Emits {@code key.rotated} with the new
     * key's {@code {keyId, name, prefix, scopes}} plus {@code previousKeyId}, {@code previousPrefix} and
     * {@code previousExpiresAt}; no {@code key.created}.
     */
    public Rotation rotate(Connection c, UUID accountId, UUID keyId, Duration grace) throws SQLException {
        String name;
        String previousPrefix;
        byte[] previousHash;
        List<String> scopes;
        try (PreparedStatement lock = c.prepareStatement("""
                select name, prefix, key_hash, scopes, status from api_keys where id = ? and account_id = ? for update""")) {
            lock.setObject(1, keyId);
            lock.setObject(2, accountId);
            try (ResultSet rs = lock.executeQuery()) {
                if (!rs.next()) {
                    return new Rotation.NotFound();
                }
                if (!"active".equals(rs.getString("status"))) {
                    return new Rotation.NotActive(rs.getString("status"));
                }
                name = rs.getString("name");
                previousPrefix = rs.getString("prefix");
                previousHash = rs.getBytes("key_hash");
                scopes = List.of((String[]) rs.getArray("scopes").getArray());
            }
        }
        IssuedKey key = insert(c, accountId, name, scopes);
        Instant expiresAt = key.createdAt().plus(grace);
        try (PreparedStatement old = c.prepareStatement("""
                update api_keys set status = 'grace', expires_at = ?, replaced_by = ? where id = ?""")) {
            old.setTimestamp(1, Timestamp.from(expiresAt));
            old.setObject(2, key.id());
            old.setObject(3, keyId);
            old.executeUpdate();
        }
        Map<String, Object> data = eventData(key.id(), name, key.secret().displayPrefix(), scopes);
        data.put("previousKeyId", keyId.toString());
        data.put("previousPrefix", previousPrefix);
        data.put("previousExpiresAt", expiresAt.toString());
        outbox.append(c, "key.rotated", accountId, data);
        return new Rotation.Rotated(key, keyId, previousPrefix, previousHash, expiresAt);
    }

    /**
     * Revokes the account's key {@code keyId} if it still works; empty when it does not (unknown, another
     * account's, already revoked, or past its grace).
     */
    public Optional<RevokedKey> revoke(Connection c, UUID accountId, UUID keyId) throws SQLException {
        return revokeWhere(c, "id = ? and account_id = ?", keyId, accountId);
    }

    /**
     * Revokes the working key with this display prefix (the operator's {@code revoke-key}); empty when no
     * working key has it.
     */
    public Optional<RevokedKey> revokeByPrefix(Connection c, String prefix) throws SQLException {
        return revokeWhere(c, "prefix = ?", prefix);
    }

    /**
     * The one revocation: the key fails from the next request on in every API instance (the row's trigger
     * notifies them), and {@code key.revoked} {@code {keyId, name, prefix, scopes}} is emitted.
     */
    private Optional<RevokedKey> revokeWhere(Connection c, String condition, Object... parameters)
            throws SQLException {
        Instant now = now();
        try (PreparedStatement update = c.prepareStatement("""
                update api_keys set status = 'revoked', revoked_at = ?
                 where %s and %s
                returning id, account_id, name, prefix, scopes, key_hash""".formatted(condition, WORKS))) {
            update.setTimestamp(1, Timestamp.from(now));
            int i = 2;
            for (Object parameter : parameters) {
                update.setObject(i++, parameter);
            }
            update.setTimestamp(i, Timestamp.from(now));
            try (ResultSet rs = update.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                RevokedKey key = new RevokedKey(rs.getObject("id", UUID.class), rs.getObject("account_id", UUID.class),
                        rs.getString("name"), rs.getString("prefix"),
                        List.of((String[]) rs.getArray("scopes").getArray()), rs.getBytes("key_hash"), now);
                if (rs.next()) {
                    throw new SQLException("more than one key matched " + condition);
                }
                outbox.append(c, "key.revoked", key.accountId(), eventData(key.id(), key.name(), key.prefix(),
                        key.scopes()));
                return Optional.of(key);
            }
        }
    }

    private IssuedKey insert(Connection c, UUID accountId, String name, List<String> scopeNames) throws SQLException {
        ApiKeySecret secret = ApiKeySecret.generate();
        UUID id = UUID.randomUUID();
        Instant now = now();
        try (PreparedStatement insert = c.prepareStatement("""
                insert into api_keys (id, account_id, name, prefix, key_hash, scopes, status, created_at)
                values (?, ?, ?, ?, ?, ?, 'active', ?)""")) {
            insert.setObject(1, id);
            insert.setObject(2, accountId);
            insert.setString(3, name);
            insert.setString(4, secret.displayPrefix());
            insert.setBytes(5, secret.hash());
            insert.setArray(6, c.createArrayOf("text", scopeNames.toArray()));
            insert.setTimestamp(7, Timestamp.from(now));
            insert.executeUpdate();
        }
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
