package pe.quipu.api.accounts;

import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.UnableToExecuteStatementException;
import pe.quipu.api.audit.AuditLog;
import pe.quipu.api.auth.SessionPrincipal;
import pe.quipu.api.domain.DomainException.Conflict;
import pe.quipu.core.accounts.EmailIdentity;
import pe.quipu.api.throttle.KeyedThrottle;
import pe.quipu.api.domain.DomainException.RateLimited;
import pe.quipu.api.domain.DomainException.Unauthenticated;
import pe.quipu.api.domain.Text;
import pe.quipu.api.plans.Subscriptions;

import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * Signup and sessions (contract §2): login, refresh with rotation and reuse detection, logout. Each action commits
 * with its audit row. Password hashing runs outside any transaction: it is deliberately slow.
 */
public final class AccountService {

    private static final String UNIQUE_VIOLATION = "23505";
    /** More than enough for a token to be signed after its refresh commits, even across a long GC pause. */
    private static final Duration ISSUE_MARGIN = Duration.ofMinutes(1);

    private final Jdbi jdbi;
    private final Clock clock;
    private final PasswordHasher passwords;
    private final AccessTokens accessTokens;
    private final AuditLog audit;
    private final Duration refreshLifetime;
    private final Duration accessLifetime;
    private final LoginThrottle throttle;
    private final TokenDenylist denylist;
    private final KeyedThrottle signups;
    private final Duration usualAddressWindow;

    /** @param usualAddressWindow how recent a login from an address makes it one of the account's usual ones */
    public AccountService(Jdbi jdbi, Clock clock, PasswordHasher passwords, AccessTokens accessTokens, AuditLog audit,
                          Duration refreshLifetime, Duration accessLifetime, LoginThrottle throttle,
                          Duration usualAddressWindow, TokenDenylist denylist, KeyedThrottle signups) {
        this.jdbi = jdbi;
        this.clock = clock;
        this.passwords = passwords;
        this.accessTokens = accessTokens;
        this.audit = audit;
        this.refreshLifetime = refreshLifetime;
        this.accessLifetime = accessLifetime;
        this.throttle = throttle;
        this.denylist = denylist;
        this.signups = signups;
        this.usualAddressWindow = usualAddressWindow;
    }

    /** A new account on the free plan; {@link Conflict} when the email is taken (compared by {@link EmailIdentity}). */
    public Account signup(String email, String password, String nombre, AuditLog.Origin origin) {
        throttle.refuseSignup(origin.ip()).ifPresent(retryAfter -> {
            throw new RateLimited(Text.of("accounts.signup.throttled", KeyedThrottle.seconds(retryAfter)), retryAfter);
        });
        // The daily cap per address, counted after the per-minute allowance so that a burst refused there costs
        // none of the day's signups.
        signups.take(LoginThrottle.addressKey(origin.ip()));
        String hash = passwords.hash(password);
        UUID id = UUID.randomUUID();
        // PostgreSQL keeps microseconds: the answer shows createdAt as GET /v1/me will.
        Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS);
        try {
            jdbi.useTransaction(h -> {
                h.attach(AccountRows.class).insert(id, email, EmailIdentity.of(email), nombre, hash, now);
                Subscriptions.openFree(h, id, now);
                // No email in the details: the account's row holds it, and a rectification must not leave the old
                // one behind here.
                audit.record(h, id, "signup", origin, Map.of());
            });
        } catch (UnableToExecuteStatementException e) {
            if (e.getCause() instanceof SQLException sql && UNIQUE_VIOLATION.equals(sql.getSQLState())) {
                throw new Conflict(Text.of("accounts.signup.email_taken"));
            }
            throw e;
        }
        return new Account(id, email, nombre, 80, now);
    }

    /**
     * Opens a session: an access token and the session's first refresh token. Unknown email, an account without a
     * password and a wrong password all cost one Argon2 verification and give the same 401. A throttled attempt
     * (see {@link LoginThrottle}) is refused before any of that.
     */
    public TokenPair login(String email, String password, AuditLog.Origin origin) {
        LoginThrottle.Admission admission = throttle.admit(email, origin.ip(), this::isUsualAddress);
        if (admission instanceof LoginThrottle.Admission.Throttled(long retryAfter)) {
            throw new RateLimited(Text.of("accounts.login.throttled", KeyedThrottle.seconds(retryAfter)), retryAfter);
        }
        Optional<AccountRows.Credentials> account = jdbi.withHandle(h -> h.attach(AccountRows.class)
                .credentials(email, EmailIdentity.of(email)));
        boolean ok;
        try {
            ok = passwords.matches(password, account.map(AccountRows.Credentials::passwordHash).orElse(null));
        } catch (RateLimited busy) {
            // Too many hashes under way: nothing was checked, so nothing failed.
            throttle.giveBack((LoginThrottle.Admission.Admitted) admission);
            throw busy;
        }
        if (!ok || account.isEmpty()) {
            // Whoever failed may not be the account holder: the row keeps the fact and the time, not their address.
            account.ifPresent(a -> jdbi.useTransaction(h ->
                    audit.record(h, a.id(), "login.failed", AuditLog.Origin.UNRECORDED, Map.of())));
            throw new Unauthenticated(Text.of("accounts.login.wrong_credentials"));
        }
        throttle.giveBack((LoginThrottle.Admission.Admitted) admission);
        UUID accountId = account.get().id();
        UUID sessionId = UUID.randomUUID();
        String refreshToken = RefreshTokens.generate();
        Instant now = clock.instant();
        jdbi.useTransaction(h -> {
            SessionRows sessions = h.attach(SessionRows.class);
            sessions.open(sessionId, accountId, now, origin.ip(), origin.userAgent());
            addRefreshToken(sessions, sessionId, refreshToken, now);
            audit.record(h, accountId, "login", origin, Map.of("sessionId", sessionId.toString()));
        });
        AccessTokens.Issued access = accessTokens.issue(accountId, sessionId);
        return TokenPair.bearer(access.token(), refreshToken, access.expiresIn());
    }

    /**
     * Spends a refresh token and issues the session's next one with a new access token. The session's row is
     * locked, so two refreshes of one session run one after the other. A token already spent is
     * reuse: a copy of it is in someone else's hands, so the whole session is revoked (its refresh tokens
     * deleted, its access tokens denylisted on every instance) and the refresh is refused. Refreshes are not audited;
     * a reuse is, without the request's address or user agent ({@link AuditLog.Origin#UNRECORDED}).
     */
    public TokenPair refresh(String refreshToken) {
        Instant now = clock.instant();
        String next = RefreshTokens.generate();
        byte[] hash = RefreshTokens.hash(refreshToken);
        Refreshed outcome = jdbi.inTransaction(h -> {
            SessionRows sessions = h.attach(SessionRows.class);
            Optional<UUID> session = sessions.sessionOf(hash);
            if (session.isEmpty()) {
                return new Refreshed.Refused();
            }
            sessions.lock(session.get());
            // Read again under the lock: a refresh or logout that went first has changed or removed the row.
            Optional<SessionRows.SpentToken> found = sessions.spentToken(hash);
            if (found.isEmpty()) {
                return new Refreshed.Refused();
            }
            SessionRows.SpentToken token = found.get();
            if (token.revokedAt() != null || token.deletedAt() != null || !now.isBefore(token.expiresAt())) {
                return new Refreshed.Refused();
            }
            if (token.usedAt() != null) {
                SessionRows.Denial denial = revokeSession(sessions, token.sessionId(), now);
                // The replay may come from whoever took the token, or from the holder after the taker refreshed.
                audit.record(h, token.accountId(), "session.reuse_detected", AuditLog.Origin.UNRECORDED,
                        Map.of("sessionId", token.sessionId().toString()));
                return new Refreshed.ReuseDetected(denial);
            }
            sessions.spend(hash, now);
            // Spent tokens are kept until they expire, so that a replay is recognised (SessionCleanup deletes them).
            addRefreshToken(sessions, token.sessionId(), next, now);
            return new Refreshed.Rotated(token.accountId(), token.sessionId());
        });
        return switch (outcome) {
            case Refreshed.Rotated(UUID accountId, UUID sessionId) -> {
                AccessTokens.Issued access = accessTokens.issue(accountId, sessionId);
                yield TokenPair.bearer(access.token(), next, access.expiresIn());
            }
            case Refreshed.ReuseDetected(SessionRows.Denial denial) -> {
                // This instance refuses the session's access tokens at once; the others on the notification.
                denylist.deny(denial);
                throw new Unauthenticated(Text.of("accounts.refresh.reused"));
            }
            case Refreshed.Refused() ->
                    throw new Unauthenticated(Text.of("accounts.refresh.invalid"));
        };
    }

    /**
     * Ends the caller's session: the session and its refresh tokens are deleted, and both this access token (by
     * {@code jti}) and every other access token of the session (by {@code sid}) are denylisted on every instance.
     */
    public void logout(SessionPrincipal caller, AuditLog.Origin origin) {
        List<SessionRows.Denial> denials = jdbi.inTransaction(h -> {
            SessionRows sessions = h.attach(SessionRows.class);
            sessions.delete(caller.sessionId(), caller.accountId());
            SessionRows.Denial token = sessions.deny("jti", caller.jti(), caller.expiresAt());
            SessionRows.Denial session = sessions.deny("sid", caller.sessionId().toString(), sessionDenialEnd());
            audit.record(h, caller.accountId(), "logout", origin,
                    Map.of("sessionId", caller.sessionId().toString()));
            return List.of(token, session);
        });
        // This instance refuses them before answering; the others on the notifications.
        denials.forEach(denylist::deny);
    }

    /**
     * Whether the live account with this email logged in from this client address (an IPv6 one by its /64) within
     * {@link #usualAddressWindow}, as its {@code login} audit rows say: that address is spared by the login
     * throttle's ceiling per email. An unknown email has no usual address.
     */
    private boolean isUsualAddress(String email, String address) {
        String key = LoginThrottle.addressKey(address);
        List<String> logins = jdbi.withHandle(h -> h.attach(AccountRows.class)
                .loginAddresses(email, EmailIdentity.of(email), clock.instant().minus(usualAddressWindow)));
        return logins.stream().map(LoginThrottle::addressKey).anyMatch(key::equals);
    }

    /**
     * Revokes a session on the caller's transaction: no refresh token of it works, nor any access token. Answers its
     * denylist row, for this instance to refuse once committed.
     */
    private SessionRows.Denial revokeSession(SessionRows sessions, UUID sessionId, Instant now) {
        sessions.revoke(sessionId, now);
        sessions.deleteRefreshTokens(sessionId);
        return sessions.deny("sid", sessionId.toString(), sessionDenialEnd());
    }

    /**
     * Until when a revoked session's access tokens must be refused. Read once the session row is locked: a refresh
     * that held the lock has committed, and it issues its access token just after its commit, so the token expires
     * within a lifetime of now, plus the moments between that commit and the signing (ISSUE_MARGIN).
     */
    private Instant sessionDenialEnd() {
        return clock.instant().plus(accessLifetime).plus(ISSUE_MARGIN);
    }

    private void addRefreshToken(SessionRows sessions, UUID sessionId, String token, Instant now) {
        sessions.addRefreshToken(RefreshTokens.hash(token), sessionId, now, now.plus(refreshLifetime));
    }

    /** What a refresh came to, decided inside its transaction and acted on after the commit. */
    private sealed interface Refreshed {
        /** The token was spent and the session's next one stored. */
        record Rotated(UUID accountId, UUID sessionId) implements Refreshed {
        }

        /** A spent token came back: the session is revoked, and denied by this row. */
        record ReuseDetected(SessionRows.Denial denial) implements Refreshed {
        }

        /** Unknown, expired, or of a revoked session or deleted account. */
        record Refused() implements Refreshed {
        }
    }
}
