package pe.quipu.api.accounts;

import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;
import pe.quipu.api.audit.AuditLog;
import pe.quipu.api.auth.SessionPrincipal;
import pe.quipu.api.domain.DomainException.Gone;
import pe.quipu.api.domain.Text;

import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * {@code DELETE /v1/me} (the spec's account deletion; contract §8): the account holder's own deletion, all in one
 * transaction, seen by every instance through the notifications its writes raise (keys, denylist, subscriptions):
 * <ol>
 *   <li>soft-delete: {@code deleted_at};</li>
 *   <li>every key revoked (401 from the next request on, everywhere);</li>
 *   <li>sessions and their refresh tokens deleted;</li>
 *   <li>the email/password identity deleted (the password hash; the email stays only to block its reuse until the
 *       purge, docs/decisions.md);</li>
 *   <li>the calling access token denylisted;</li>
 *   <li>the account's audit rows anonymised: {@code at} and {@code action} stay, the rest is cleared.</li>
 * </ol>
 * Also: its webhook endpoints are set inactive and their pending deliveries cancelled (deleted); nothing more is
 * emitted or delivered for the account. The purge ({@link AccountPurge}) removes the rest 30 days later.
 */
public final class AccountDeletion {

    /** The exact phrase the body must carry: no trimming, no case or accent folding. */
    public static final String CONFIRMATION = "BORRAR MI CUENTA";

    private final Jdbi jdbi;
    private final Clock clock;
    private final AuditLog audit;
    private final TokenDenylist denylist;
    private final Consumer<byte[]> forgetKey;

    /**
     * @param forgetKey drops a key (by its hash) from this instance's key cache at once: the other instances learn
     *                  of the revocation from its notification, which comes back to this one asynchronously too
     */
    public AccountDeletion(Jdbi jdbi, Clock clock, AuditLog audit, TokenDenylist denylist,
                           Consumer<byte[]> forgetKey) {
        this.jdbi = jdbi;
        this.clock = clock;
        this.audit = audit;
        this.denylist = denylist;
        this.forgetKey = forgetKey;
    }

    /** When the account was deleted, if it was; empty for a live (or unknown) account. */
    public Optional<Instant> deletedAt(UUID accountId) {
        return jdbi.withHandle(h -> h.attach(Rows.class).deletedAt(accountId)).map(State::deletedAt);
    }

    /** Deletes the caller's account; {@link Gone} when it already is. */
    public void delete(SessionPrincipal caller, AuditLog.Origin origin) {
        UUID account = caller.accountId();
        Deleted deleted = jdbi.inTransaction(h -> {
            Rows rows = h.attach(Rows.class);
            State state = rows.lock(account)
                    .orElseThrow(Profiles::accountGone);
            if (state.deletedAt() != null) {
                throw gone(state.deletedAt());
            }
            Instant now = clock.instant();
            rows.softDelete(account, now);
            List<byte[]> keys = rows.revokeKeys(account, now);
            rows.deleteSessions(account);
            SessionRows.Denial token = h.attach(SessionRows.class).deny("jti", caller.jti(), caller.expiresAt());
            int endpoints = rows.deactivateEndpoints(account, now);
            rows.cancelDeliveries(account);
            rows.anonymiseAudit(account);
            // The deletion's own row is anonymous from the start: when, and what.
            audit.record(h, null, "account.deleted", new AuditLog.Origin(null, null),
                    Map.of("keysRevoked", keys.size(), "webhooksDeactivated", endpoints));
            // Every instance drops the account's limits (and so stops metering it).
            h.execute("select pg_notify('quipu_subscriptions', ?)", account.toString());
            return new Deleted(keys, token);
        });
        // The caller's next request, on this instance, must not find a key it still had cached, nor this token.
        deleted.revokedKeys().forEach(forgetKey);
        denylist.deny(deleted.token());
    }

    /** What the deletion's transaction leaves for this instance to apply once committed. */
    private record Deleted(List<byte[]> revokedKeys, SessionRows.Denial token) {
    }

    static Gone gone(Instant deletedAt) {
        return new Gone(Text.of("domain.account.deleted", deletedAt), deletedAt);
    }

    public record State(Instant deletedAt) {
    }

    interface Rows {
        @SqlQuery("select deleted_at from accounts where id = :account")
        @RegisterConstructorMapper(State.class)
        Optional<State> deletedAt(UUID account);

        @SqlQuery("select deleted_at from accounts where id = :account for update")
        @RegisterConstructorMapper(State.class)
        Optional<State> lock(UUID account);

        @SqlUpdate("update accounts set deleted_at = :now, password_hash = null where id = :account")
        void softDelete(UUID account, Instant now);

        @SqlQuery("""
                update api_keys set status = 'revoked', revoked_at = :now
                 where account_id = :account and status <> 'revoked'
                returning key_hash""")
        List<byte[]> revokeKeys(UUID account, Instant now);

        @SqlUpdate("delete from sessions where account_id = :account")
        void deleteSessions(UUID account);

        @SqlUpdate("""
                update webhook_endpoints set active = false, disabled_reason = 'The account was deleted',
                       updated_at = :now
                 where account_id = :account""")
        int deactivateEndpoints(UUID account, Instant now);

        @SqlUpdate("""
                delete from webhook_deliveries
                 where status in ('pending', 'retrying')
                   and endpoint_id in (select id from webhook_endpoints where account_id = :account)""")
        void cancelDeliveries(UUID account);

        @SqlUpdate("""
                update audit_log set account_id = null, ip = null, user_agent = null, details = '{}'::jsonb
                 where account_id = :account""")
        void anonymiseAudit(UUID account);
    }
}
