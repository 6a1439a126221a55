package pe.quipu.api.accounts;

import org.jdbi.v3.core.HandleCallback;
import org.jdbi.v3.core.HandleConsumer;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.UnableToExecuteStatementException;
import pe.quipu.api.auth.AccessTokens;
import pe.quipu.api.auth.SessionPrincipal;
import pe.quipu.api.auth.TokenDenylist;
import pe.quipu.api.errors.ApiProblem;
import pe.quipu.api.errors.ProblemType;
import pe.quipu.core.accounts.PasswordHasher;
import pe.quipu.core.accounts.Subscriptions;
import pe.quipu.core.audit.AuditLog;

import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
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

    public AccountService(Jdbi jdbi, Clock clock, PasswordHasher passwords, AccessTokens accessTokens, AuditLog audit,
                          Duration refreshLifetime, Duration accessLifetime, LoginThrottle throttle,
                          TokenDenylist denylist) {
        this.jdbi = jdbi;
        this.clock = clock;
        this.passwords = passwords;
        this.accessTokens = accessTokens;
        this.audit = audit;
        this.refreshLifetime = refreshLifetime;
        this.accessLifetime = accessLifetime;
        this.throttle = throttle;
        this.denylist = denylist;
    }

    /** A new account on the free plan; 409 {@code conflict} when the email is taken (compared case-insensitively). */
    public Account signup(String email, String password, String nombre, AuditLog.Origin origin) {
        throttle.refuseSignup(origin.ip()).ifPresent(retryAfter -> {
            throw ApiProblem.of(ProblemType.RATE_LIMITED, "Too many attempts from this address; try again in "
                    + retryAfter + " seconds").withHeader("Retry-After", Long.toString(retryAfter));
        });
        String hash = passwords.hash(password);
        UUID id = UUID.randomUUID();
        // PostgreSQL keeps microseconds: the answer shows createdAt as GET /v1/me will.
        Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS);
        try {
            inTransaction(h -> {
                h.createUpdate("""
                                insert into accounts (id, email, nombre, password_hash, created_at)
                                values (:id, :email, :nombre, :hash, :now)""")
                        .bind("id", id).bind("email", email).bind("nombre", nombre).bind("hash", hash)
                        .bind("now", Timestamp.from(now))
                        .execute();
                Subscriptions.openFree(h.getConnection(), id, now);
                audit.record(h.getConnection(), id, "signup", origin, Map.of("email", email));
            });
        } catch (UnableToExecuteStatementException e) {
            if (e.getCause() instanceof SQLException sql && UNIQUE_VIOLATION.equals(sql.getSQLState())) {
                throw ApiProblem.of(ProblemType.CONFLICT, "An account with this email already exists");
            }
            throw e;
        }
        return new Account(id, email, nombre, 80, now);
    }

    /**
     * Opens a session: an access token and the session's first refresh token. Unknown email, an account without a
     * password and a wrong password all cost one Argon2 verification and give the same 401. A throttled attempt
     * (see {@link LoginThrottle}) gets 429 {@code rate_limited} before any of that.
     */
    public TokenPair login(String email, String password, AuditLog.Origin origin) {
        LoginThrottle.Admission admission = throttle.admit(email, origin.ip());
        if (admission instanceof LoginThrottle.Admission.Throttled(long retryAfter)) {
            throw ApiProblem.of(ProblemType.RATE_LIMITED,
                            "Too many login attempts; try again in " + retryAfter + " seconds")
                    .withHeader("Retry-After", Long.toString(retryAfter));
        }
        Optional<Credentials> account = jdbi.withHandle(h -> h.createQuery("""
                        select id, password_hash from accounts where lower(email) = lower(:email) and deleted_at is null""")
                .bind("email", email)
                .map((rs, ctx) -> new Credentials(rs.getObject("id", UUID.class), rs.getString("password_hash")))
                .findOne());
        boolean ok = passwords.matches(password, account.map(Credentials::passwordHash).orElse(null));
        if (!ok || account.isEmpty()) {
            account.ifPresent(a -> inTransaction(h ->
                    audit.record(h.getConnection(), a.id(), "login.failed", origin, Map.of())));
            throw ApiProblem.of(ProblemType.UNAUTHORIZED, "Email or password is wrong");
        }
        throttle.succeeded((LoginThrottle.Admission.Admitted) admission);
        UUID accountId = account.get().id();
        UUID sessionId = UUID.randomUUID();
        String refreshToken = RefreshTokens.generate();
        Instant now = clock.instant();
        inTransaction(h -> {
            h.createUpdate("""
                            insert into sessions (id, account_id, created_at, ip, user_agent)
                            values (:id, :account, :now, :ip, :ua)""")
                    .bind("id", sessionId).bind("account", accountId).bind("now", Timestamp.from(now))
                    .bind("ip", origin.ip()).bind("ua", origin.userAgent())
                    .execute();
            insertRefreshToken(h, sessionId, refreshToken, now);
            audit.record(h.getConnection(), accountId, "login", origin, Map.of("sessionId", sessionId.toString()));
        });
        AccessTokens.Issued access = accessTokens.issue(accountId, sessionId);
        return TokenPair.bearer(access.token(), refreshToken, access.expiresIn());
    }

    /**
     * Spends a refresh token and issues the session's next one with a new access token. The session's row is
     * locked, so two refreshes of one session run one after the other. A token already spent is
     * reuse: a copy of it is in someone else's hands, so the whole session is revoked (its refresh tokens
     * deleted, its access tokens denylisted on every instance) and the answer is 401.
     */
    public TokenPair refresh(String refreshToken, AuditLog.Origin origin) {
        Instant now = clock.instant();
        String next = RefreshTokens.generate();
        byte[] hash = RefreshTokens.hash(refreshToken);
        Refreshed outcome = transaction(h -> {
            // Whatever changes a session's tokens (refresh, reuse, logout) locks the session row first, then
            // token rows: one order everywhere, so they queue instead of deadlocking.
            Optional<UUID> session = h.createQuery("select session_id from refresh_tokens where token_hash = :hash")
                    .bind("hash", hash)
                    .mapTo(UUID.class)
                    .findOne();
            if (session.isEmpty()) {
                return new Refreshed.Refused();
            }
            h.createQuery("select id from sessions where id = :session for update")
                    .bind("session", session.get())
                    .mapTo(UUID.class)
                    .findOne();
            // Read again under the lock: a refresh or logout that went first has changed or removed the row.
            Optional<SpentToken> found = h.createQuery("""
                            select rt.session_id, rt.expires_at, rt.used_at, s.account_id, s.revoked_at, a.deleted_at
                              from refresh_tokens rt
                              join sessions s on s.id = rt.session_id
                              join accounts a on a.id = s.account_id
                             where rt.token_hash = :hash""")
                    .bind("hash", hash)
                    .map((rs, ctx) -> new SpentToken(rs.getObject("session_id", UUID.class),
                            rs.getObject("account_id", UUID.class),
                            rs.getTimestamp("expires_at").toInstant(), rs.getTimestamp("used_at") != null,
                            rs.getTimestamp("revoked_at") != null, rs.getTimestamp("deleted_at") != null))
                    .findOne();
            if (found.isEmpty()) {
                return new Refreshed.Refused();
            }
            SpentToken token = found.get();
            if (token.sessionRevoked() || token.accountDeleted() || !now.isBefore(token.expiresAt())) {
                return new Refreshed.Refused();
            }
            if (token.used()) {
                revokeSession(h, token.sessionId(), now);
                audit.record(h.getConnection(), token.accountId(), "session.reuse_detected", origin,
                        Map.of("sessionId", token.sessionId().toString()));
                return new Refreshed.ReuseDetected();
            }
            h.createUpdate("update refresh_tokens set used_at = :now where token_hash = :hash")
                    .bind("now", Timestamp.from(now)).bind("hash", hash)
                    .execute();
            // Spent tokens are kept until they expire, so that a replay is recognised (SessionCleanup deletes them).
            insertRefreshToken(h, token.sessionId(), next, now);
            return new Refreshed.Rotated(token.accountId(), token.sessionId());
        });
        return switch (outcome) {
            case Refreshed.Rotated(UUID accountId, UUID sessionId) -> {
                AccessTokens.Issued access = accessTokens.issue(accountId, sessionId);
                yield TokenPair.bearer(access.token(), next, access.expiresIn());
            }
            case Refreshed.ReuseDetected() -> {
                // This instance refuses the session's access tokens at once; the others on the notification.
                denylist.reload();
                throw ApiProblem.of(ProblemType.UNAUTHORIZED, "This refresh token was already used, so the session "
                        + "has been revoked as a precaution; log in again");
            }
            case Refreshed.Refused() ->
                    throw ApiProblem.of(ProblemType.UNAUTHORIZED, "The refresh token is not valid or has expired; log in again");
        };
    }

    /**
     * Ends the caller's session: the session and its refresh tokens are deleted, and both this access token (by
     * {@code jti}) and every other access token of the session (by {@code sid}) are denylisted on every instance.
     */
    public void logout(SessionPrincipal caller, AuditLog.Origin origin) {
        inTransaction(h -> {
            h.createUpdate("delete from sessions where id = :session and account_id = :account")
                    .bind("session", caller.sessionId()).bind("account", caller.accountId())
                    .execute();
            deny(h, "jti", caller.jti(), caller.expiresAt());
            deny(h, "sid", caller.sessionId().toString(), sessionDenialEnd());
            audit.record(h.getConnection(), caller.accountId(), "logout", origin,
                    Map.of("sessionId", caller.sessionId().toString()));
        });
        denylist.reload();
    }

    /** Revokes a session on the caller's transaction: no refresh token of it works, nor any access token. */
    private void revokeSession(org.jdbi.v3.core.Handle h, UUID sessionId, Instant now) {
        h.createUpdate("update sessions set revoked_at = :now where id = :session and revoked_at is null")
                .bind("now", Timestamp.from(now)).bind("session", sessionId)
                .execute();
        h.createUpdate("delete from refresh_tokens where session_id = :session")
                .bind("session", sessionId)
                .execute();
        deny(h, "sid", sessionId.toString(), sessionDenialEnd());
    }

    /**
     * Until when a revoked session's access tokens must be refused. Read once the session row is locked: a refresh
     * that held the lock has committed, and it issues its access token just after its commit, so the token expires
     * within a lifetime of now, plus the moments between that commit and the signing (ISSUE_MARGIN).
     */
    private Instant sessionDenialEnd() {
        return clock.instant().plus(accessLifetime).plus(ISSUE_MARGIN);
    }

    /** A denylist row; its insert notifies every instance (004-token-denylist). */
    private static void deny(org.jdbi.v3.core.Handle h, String kind, String value, Instant until) {
        h.createUpdate("""
                        insert into token_denylist (kind, value, expires_at) values (:kind, :value, :until)
                        on conflict (kind, value) do update set expires_at = greatest(token_denylist.expires_at, excluded.expires_at)""")
                .bind("kind", kind).bind("value", value).bind("until", Timestamp.from(until))
                .execute();
    }

    void insertRefreshToken(org.jdbi.v3.core.Handle h, UUID sessionId, String token, Instant now) {
        h.createUpdate("""
                        insert into refresh_tokens (token_hash, session_id, issued_at, expires_at)
                        values (:hash, :session, :now, :expires)""")
                .bind("hash", RefreshTokens.hash(token)).bind("session", sessionId)
                .bind("now", Timestamp.from(now)).bind("expires", Timestamp.from(now.plus(refreshLifetime)))
                .execute();
    }

    /** Runs {@code work} in one transaction; a JDBC failure is unexpected here and becomes a 500. */
    void inTransaction(HandleConsumer<SQLException> work) {
        try {
            jdbi.useTransaction(work);
        } catch (SQLException e) {
            throw new IllegalStateException("account transaction failed", e);
        }
    }

    private <T> T transaction(HandleCallback<T, SQLException> work) {
        try {
            return jdbi.inTransaction(work);
        } catch (SQLException e) {
            throw new IllegalStateException("account transaction failed", e);
        }
    }

    private record Credentials(UUID id, String passwordHash) {
    }

    private record SpentToken(UUID sessionId, UUID accountId, Instant expiresAt, boolean used, boolean sessionRevoked,
                              boolean accountDeleted) {
    }

    /** What a refresh came to, decided inside its transaction and acted on after the commit. */
    private sealed interface Refreshed {
        /** The token was spent and the session's next one stored. */
        record Rotated(UUID accountId, UUID sessionId) implements Refreshed {
        }

        /** A spent token came back: the session is revoked. */
        record ReuseDetected() implements Refreshed {
        }

        /** Unknown, expired, or of a revoked session or deleted account. */
        record Refused() implements Refreshed {
        }
    }
}
