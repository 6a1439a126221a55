package pe.quipu.api.keys;

import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import pe.quipu.api.audit.AuditLog;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.domain.DomainException.Conflict;
import pe.quipu.api.domain.DomainException.NotFound;
import pe.quipu.api.domain.DomainException.Unauthenticated;
import pe.quipu.api.domain.Text;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
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
    /** The detail of a 404 for a key id: unknown, another account's, or not an id at all. */
    static final Text NOT_FOUND = Text.of("keys.not_found");

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
        return jdbi.withHandle(h -> h.attach(ListedKeyRows.class)
                        .list(accountId, now, now.minus(ENDED_KEPT), ENDED_LISTED))
                .stream().map(row -> row.view(now)).toList();
    }

    /** A new key; {@link Conflict} when the account already has {@code maxWorkingKeys} working keys. */
    public NewKey create(UUID accountId, String name, Set<Scope> scopes, AuditLog.Origin origin) {
        KeyIssuer.IssuedKey key = jdbi.inTransaction(h -> {
            lockAccount(h, accountId);
            if (issuer.countWorking(h, accountId) >= maxWorkingKeys) {
                throw tooMany();
            }
            KeyIssuer.IssuedKey issued = issuer.issue(h, accountId, name, scopes);
            audit.record(h, accountId, "key.created", origin, issued.auditDetails());
            return issued;
        });
        return newKey(key);
    }

    /**
     * A new key with the old one's name and scopes; the old one works for {@code rotationGrace} more.
     * {@link NotFound} when the account has no such key, {@link Conflict} when it is not active (in grace or
     * revoked: rotate its replacement instead).
     */
    public NewKey rotate(UUID accountId, UUID keyId, AuditLog.Origin origin) {
        KeyIssuer.Rotation.Rotated rotated = jdbi.inTransaction(h -> {
            lockAccount(h, accountId);
            KeyIssuer.Rotation rotation = issuer.rotate(h, accountId, keyId, rotationGrace);
            switch (rotation) {
                case KeyIssuer.Rotation.NotFound _ -> throw notFound();
                case KeyIssuer.Rotation.NotActive notActive -> throw new Conflict("grace".equals(notActive.status())
                        ? Text.of("keys.rotate.in_grace") : Text.of("keys.rotate.revoked"));
                case KeyIssuer.Rotation.Rotated done -> {
                    // The old key still works during its grace, so the new one must fit beside it.
                    if (issuer.countWorking(h, accountId) > maxWorkingKeys) {
                        throw tooMany();
                    }
                    Map<String, Object> details = done.key().auditDetails();
                    details.put("previousKeyId", keyId.toString());
                    details.put("previousPrefix", done.previousPrefix());
                    audit.record(h, accountId, "key.rotated", origin, details);
                    return done;
                }
            }
        });
        cache.forget(rotated.previousKeyHash());
        return newKey(rotated.key());
    }

    /**
     * Revokes the key: it fails from the next request on. Revoking a key that no longer works (revoked, or past
     * its grace) changes nothing and is not an error; {@link NotFound} when the account has no such key.
     */
    public void revoke(UUID accountId, UUID keyId, AuditLog.Origin origin) {
        Optional<KeyIssuer.RevokedKey> revoked = jdbi.inTransaction(h -> {
            Optional<KeyIssuer.RevokedKey> key = issuer.revoke(h, accountId, keyId);
            if (key.isPresent()) {
                audit.record(h, accountId, "key.revoked", origin, key.get().auditDetails());
            } else if (!h.attach(ListedKeyRows.class).exists(keyId, accountId)) {
                throw notFound();
            }
            return key;
        });
        revoked.ifPresent(k -> cache.forget(k.keyHash()));
    }

    private static NotFound notFound() {
        return new NotFound(NOT_FOUND);
    }

    private Conflict tooMany() {
        return new Conflict(Text.of("keys.too_many", maxWorkingKeys));
    }

    /** Serialises key changes per account, so that two concurrent creations cannot both pass the cap. */
    private static void lockAccount(Handle h, UUID accountId) {
        if (h.attach(ListedKeyRows.class).lockAccount(accountId).isEmpty()) {
            throw new Unauthenticated(Text.of("keys.account_gone"));
        }
    }

    private static NewKey newKey(KeyIssuer.IssuedKey key) {
        return new NewKey(key.id(), key.name(), key.secret().displayPrefix(), key.scopes(), "active", key.createdAt(),
                null, null, key.secret().reveal());
    }

    /** The SQL of the owner's view of its keys. */
    interface ListedKeyRows {

        record Row(UUID id, String name, String prefix, List<String> scopes, String status, Instant createdAt,
                   Instant lastUsedAt, Instant expiresAt) {

            /** A key in grace whose grace has ended shows {@code revoked}: that is what it does now. */
            KeyView view(Instant now) {
                String shown = "grace".equals(status) && !now.isBefore(expiresAt) ? "revoked" : status;
                return new KeyView(id, name, prefix, scopes, shown, createdAt, lastUsedAt, expiresAt);
            }
        }

        @SqlQuery("""
                select id, name, prefix, scopes, status, created_at, last_used_at, expires_at
                  from api_keys
                 where account_id = :accountId and (status = 'active' or (status = 'grace' and expires_at > :now))
                union all
                (select id, name, prefix, scopes, status, created_at, last_used_at, expires_at
                   from api_keys
                  where account_id = :accountId
                    and (status = 'revoked' or (status = 'grace' and expires_at <= :now))
                    and coalesce(revoked_at, expires_at, created_at) > :since
                  order by coalesce(revoked_at, expires_at, created_at) desc
                  limit :ended)
                order by created_at desc, id desc""")
        @RegisterConstructorMapper(Row.class)
        List<Row> list(UUID accountId, Instant now, Instant since, int ended);

        @SqlQuery("select id from accounts where id = :accountId and deleted_at is null for update")
        Optional<UUID> lockAccount(UUID accountId);

        @SqlQuery("select exists (select 1 from api_keys where id = :id and account_id = :accountId)")
        boolean exists(UUID id, UUID accountId);
    }
}
