package pe.quipu.api.keys;

import org.jdbi.v3.core.HandleCallback;
import org.jdbi.v3.core.Jdbi;
import pe.quipu.api.auth.ApiKeyAuthenticator;
import pe.quipu.api.errors.ApiProblem;
import pe.quipu.api.errors.ProblemType;
import pe.quipu.core.audit.AuditLog;
import pe.quipu.core.keys.KeyIssuer;
import pe.quipu.core.keys.Scope;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * An account's own API keys (contract §2, {@code /v1/keys}): list, create, rotate, revoke. Each change commits
 * with its event ({@link KeyIssuer}) and its audit row; the instance that made it forgets the changed key at once,
 * and the others on the {@code api_keys} notification.
 */
public final class AccountKeys {

    /** Keys that stopped working stay listed this long after they stopped, the most recent {@link #ENDED_LISTED}. */
    static final Duration ENDED_KEPT = Duration.ofDays(90);
    static final int ENDED_LISTED = 100;

    private final Jdbi jdbi;
    private final Clock clock;
    private final KeyIssuer issuer;
    private final AuditLog audit;
    private final ApiKeyAuthenticator cache;
    private final Duration rotationGrace;
    private final int maxWorkingKeys;

    public AccountKeys(Jdbi jdbi, Clock clock, KeyIssuer issuer, AuditLog audit, ApiKeyAuthenticator cache,
                       Duration rotationGrace, int maxWorkingKeys) {
        this.jdbi = jdbi;
        this.clock = clock;
        this.issuer = issuer;
        this.audit = audit;
        this.cache = cache;
        this.rotationGrace = rotationGrace;
        this.maxWorkingKeys = maxWorkingKeys;
    }

    /**
     * The keys that work, and those that stopped working in the last {@link #ENDED_KEPT} (at most the
     * {@link #ENDED_LISTED} most recent of them), newest first.
     */
    public List<KeyView> list(UUID accountId) {
        Instant now = clock.instant();
        return jdbi.withHandle(h -> h.createQuery("""
                        select id, name, prefix, scopes, status, created_at, last_used_at, expires_at
                          from api_keys
                         where account_id = :account and (status = 'active' or (status = 'grace' and expires_at > :now))
                        union all
                        (select id, name, prefix, scopes, status, created_at, last_used_at, expires_at
                           from api_keys
                          where account_id = :account
                            and (status = 'revoked' or (status = 'grace' and expires_at <= :now))
                            and coalesce(revoked_at, expires_at, created_at) > :since
                          order by coalesce(revoked_at, expires_at, created_at) desc
                          limit :ended)
                        order by created_at desc, id desc""")
                .bind("account", accountId)
                .bind("now", Timestamp.from(now))
                .bind("since", Timestamp.from(now.minus(ENDED_KEPT)))
                .bind("ended", ENDED_LISTED)
                .map((rs, ctx) -> view(rs, now))
                .list());
    }

    /** A new key; 409 {@code conflict} when the account already has {@code maxWorkingKeys} working keys. */
    public NewKey create(UUID accountId, String name, Set<Scope> scopes, AuditLog.Origin origin) {
        KeyIssuer.IssuedKey key = inTransaction(c -> {
            lockAccount(c, accountId);
            requireRoomForOneMore(c, accountId);
            KeyIssuer.IssuedKey issued = issuer.issue(c, accountId, name, scopes);
            audit.record(c, accountId, "key.created", origin, issued.auditDetails());
            return issued;
        });
        return newKey(key);
    }

    /**
     * A new key with the old one's name and scopes; the old one works for {@code rotationGrace} more. 404 when the
     * account has no such key, 409 when it is not active (in grace or revoked: rotate its replacement instead).
     */
    public NewKey rotate(UUID accountId, UUID keyId, AuditLog.Origin origin) {
        KeyIssuer.Rotation.Rotated rotated = inTransaction(c -> {
            lockAccount(c, accountId);
            KeyIssuer.Rotation rotation = issuer.rotate(c, accountId, keyId, rotationGrace);
            switch (rotation) {
                case KeyIssuer.Rotation.NotFound _ -> throw notFound();
                case KeyIssuer.Rotation.NotActive notActive -> throw ApiProblem.of(ProblemType.CONFLICT,
                        "Only an active key can be rotated; this key is " + ("grace".equals(notActive.status())
                                ? "in its grace period after a rotation: rotate the key that replaced it"
                                : "revoked"));
                case KeyIssuer.Rotation.Rotated done -> {
                    // The old key still works during its grace, so the new one must fit beside it.
                    if (issuer.countWorking(c, accountId) > maxWorkingKeys) {
                        throw tooMany();
                    }
                    Map<String, Object> details = done.key().auditDetails();
                    details.put("previousKeyId", keyId.toString());
                    details.put("previousPrefix", done.previousPrefix());
                    audit.record(c, accountId, "key.rotated", origin, details);
                    return done;
                }
            }
        });
        cache.forget(rotated.previousKeyHash());
        return newKey(rotated.key());
    }

    /**
     * Revokes the key: it fails from the next request on. Revoking a key that no longer works (revoked, or past
     * its grace) changes nothing and is not an error; 404 when the account has no such key.
     */
    public void revoke(UUID accountId, UUID keyId, AuditLog.Origin origin) {
        Optional<KeyIssuer.RevokedKey> revoked = inTransaction(c -> {
            Optional<KeyIssuer.RevokedKey> key = issuer.revoke(c, accountId, keyId);
            if (key.isPresent()) {
                audit.record(c, accountId, "key.revoked", origin, key.get().auditDetails());
            } else if (!exists(c, accountId, keyId)) {
                throw notFound();
            }
            return key;
        });
        revoked.ifPresent(k -> cache.forget(k.keyHash()));
    }

    private static ApiProblem notFound() {
        return ApiProblem.of(ProblemType.NOT_FOUND, "This account has no API key with this id");
    }

    private ApiProblem tooMany() {
        return ApiProblem.of(ProblemType.CONFLICT, "An account has at most " + maxWorkingKeys
                + " working API keys (active, or in grace after a rotation); revoke one first");
    }

    private void requireRoomForOneMore(Connection c, UUID accountId) throws SQLException {
        if (issuer.countWorking(c, accountId) >= maxWorkingKeys) {
            throw tooMany();
        }
    }

    /** Serialises key changes per account, so that two concurrent creations cannot both pass the cap. */
    private static void lockAccount(Connection c, UUID accountId) throws SQLException {
        try (PreparedStatement lock = c.prepareStatement(
                "select 1 from accounts where id = ? and deleted_at is null for update")) {
            lock.setObject(1, accountId);
            try (ResultSet rs = lock.executeQuery()) {
                if (!rs.next()) {
                    throw ApiProblem.of(ProblemType.UNAUTHORIZED, "The account of this access token no longer exists");
                }
            }
        }
    }

    private static boolean exists(Connection c, UUID accountId, UUID keyId) throws SQLException {
        try (PreparedStatement find = c.prepareStatement("select 1 from api_keys where id = ? and account_id = ?")) {
            find.setObject(1, keyId);
            find.setObject(2, accountId);
            try (ResultSet rs = find.executeQuery()) {
                return rs.next();
            }
        }
    }

    private static NewKey newKey(KeyIssuer.IssuedKey key) {
        return new NewKey(key.id(), key.name(), key.secret().displayPrefix(), key.scopes(), "active", key.createdAt(),
                null, null, key.secret().reveal());
    }

    private static KeyView view(ResultSet rs, Instant now) throws SQLException {
        Instant expiresAt = instant(rs, "expires_at");
        String status = rs.getString("status");
        if ("grace".equals(status) && !now.isBefore(expiresAt)) {
            status = "revoked";
        }
        return new KeyView(rs.getObject("id", UUID.class), rs.getString("name"), rs.getString("prefix"),
                List.of((String[]) rs.getArray("scopes").getArray()), status, instant(rs, "created_at"),
                instant(rs, "last_used_at"), expiresAt);
    }

    private static Instant instant(ResultSet rs, String column) throws SQLException {
        OffsetDateTime value = rs.getObject(column, OffsetDateTime.class);
        return value == null ? null : value.toInstant();
    }

    /** Runs {@code work} in one transaction on a plain connection; an {@link ApiProblem} rolls it back. */
    private <T> T inTransaction(ConnectionWork<T> work) {
        try {
            return jdbi.inTransaction((HandleCallback<T, SQLException>) h -> work.run(h.getConnection()));
        } catch (SQLException e) {
            throw new IllegalStateException("key transaction failed", e);
        }
    }

    @FunctionalInterface
    private interface ConnectionWork<T> {
        T run(Connection c) throws SQLException;
    }
}
