package pe.quipu.api.accounts;

import org.jdbi.v3.core.HandleConsumer;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.UnableToExecuteStatementException;
import pe.quipu.api.auth.AccessTokens;
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
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * Signup and sessions (contract §2). Each action commits with its audit row. Password hashing runs outside any
 * transaction: it is deliberately slow.
 */
public final class AccountService {

    private static final String UNIQUE_VIOLATION = "23505";

    private final Jdbi jdbi;
    private final Clock clock;
    private final PasswordHasher passwords;
    private final AccessTokens accessTokens;
    private final AuditLog audit;
    private final Duration refreshLifetime;

    public AccountService(Jdbi jdbi, Clock clock, PasswordHasher passwords, AccessTokens accessTokens, AuditLog audit,
                          Duration refreshLifetime) {
        this.jdbi = jdbi;
        this.clock = clock;
        this.passwords = passwords;
        this.accessTokens = accessTokens;
        this.audit = audit;
        this.refreshLifetime = refreshLifetime;
    }

    /** A new account on the free plan; 409 {@code conflict} when the email is taken (compared case-insensitively). */
    public Account signup(String email, String password, String nombre, AuditLog.Origin origin) {
        String hash = passwords.hash(password);
        UUID id = UUID.randomUUID();
        Instant now = clock.instant();
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
     * password and a wrong password all cost one Argon2 verification and give the same 401.
     */
    public TokenPair login(String email, String password, AuditLog.Origin origin) {
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

    private record Credentials(UUID id, String passwordHash) {
    }
}
