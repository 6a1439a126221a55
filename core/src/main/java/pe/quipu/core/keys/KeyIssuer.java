package pe.quipu.core.keys;

import pe.quipu.core.accounts.Subscriptions;
import pe.quipu.core.events.EventOutbox;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * Creates accounts and API keys on the caller's connection and transaction, and announces each key with
 * a {@code key.created} event in the same transaction. The secret leaves only through {@link IssuedKey}.
 */
public final class KeyIssuer {

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

    public IssuedKey issue(Connection c, UUID accountId, String name, Set<Scope> scopes) throws SQLException {
        ApiKeySecret secret = ApiKeySecret.generate();
        UUID id = UUID.randomUUID();
        Instant now = clock.instant();
        List<String> scopeNames = scopes.stream().map(Scope::wireName).sorted().toList();
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
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("keyId", id.toString());
        data.put("name", name);
        data.put("prefix", secret.displayPrefix());
        data.put("scopes", scopeNames);
        outbox.append(c, "key.created", accountId, data);
        return new IssuedKey(id, accountId, name, secret, scopeNames, now);
    }

    /**
     * Revokes the active or grace key with this display prefix; it fails from the next request on
     * in every API instance. Returns the revoked key's id, or empty when no such key is in use.
     */
    public Optional<UUID> revokeByPrefix(Connection c, String prefix) throws SQLException {
        try (PreparedStatement update = c.prepareStatement("""
                update api_keys set status = 'revoked', revoked_at = ?
                 where prefix = ? and status in ('active', 'grace')
                returning id, account_id, name, scopes""")) {
            update.setTimestamp(1, Timestamp.from(clock.instant()));
            update.setString(2, prefix);
            try (ResultSet rs = update.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                UUID id = rs.getObject("id", UUID.class);
                Map<String, Object> data = new LinkedHashMap<>();
                data.put("keyId", id.toString());
                data.put("name", rs.getString("name"));
                data.put("prefix", prefix);
                data.put("scopes", List.of((String[]) rs.getArray("scopes").getArray()));
                outbox.append(c, "key.revoked", rs.getObject("account_id", UUID.class), data);
                if (rs.next()) {
                    throw new SQLException("more than one key has the prefix " + prefix);
                }
                return Optional.of(id);
            }
        }
    }

    /** A freshly issued key: the only object that holds its secret. */
    public record IssuedKey(UUID id, UUID accountId, String name, ApiKeySecret secret, List<String> scopes,
                            Instant createdAt) {
    }
}
