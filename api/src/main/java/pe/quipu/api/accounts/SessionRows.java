package pe.quipu.api.accounts;

import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * The SQL of sessions: {@code sessions}, their {@code refresh_tokens}, and the {@code token_denylist}.
 *
 * <p>Whatever changes a session's tokens (refresh, reuse, logout) locks the session row first, then token rows: one
 * order everywhere, so they queue instead of deadlocking.
 */
interface SessionRows {

    @SqlUpdate("""
            insert into sessions (id, account_id, created_at, ip, user_agent)
            values (:id, :accountId, :now, :ip, :userAgent)""")
    void open(UUID id, UUID accountId, Instant now, String ip, String userAgent);

    @SqlUpdate("""
            insert into refresh_tokens (token_hash, session_id, issued_at, expires_at)
            values (:hash, :sessionId, :now, :expiresAt)""")
    void addRefreshToken(byte[] hash, UUID sessionId, Instant now, Instant expiresAt);

    @SqlQuery("select session_id from refresh_tokens where token_hash = :hash")
    Optional<UUID> sessionOf(byte[] hash);

    @SqlQuery("select id from sessions where id = :id for update")
    Optional<UUID> lock(UUID id);

    /** A refresh token as its refresh finds it, read under its session's lock. */
    record SpentToken(UUID sessionId, UUID accountId, Instant expiresAt, Instant usedAt, Instant revokedAt,
                      Instant deletedAt) {
    }

    @SqlQuery("""
            select rt.session_id, s.account_id, rt.expires_at, rt.used_at, s.revoked_at, a.deleted_at
              from refresh_tokens rt
              join sessions s on s.id = rt.session_id
              join accounts a on a.id = s.account_id
             where rt.token_hash = :hash""")
    @RegisterConstructorMapper(SpentToken.class)
    Optional<SpentToken> spentToken(byte[] hash);

    @SqlUpdate("update refresh_tokens set used_at = :now where token_hash = :hash")
    void spend(byte[] hash, Instant now);

    @SqlUpdate("update sessions set revoked_at = :now where id = :id and revoked_at is null")
    void revoke(UUID id, Instant now);

    @SqlUpdate("delete from refresh_tokens where session_id = :sessionId")
    void deleteRefreshTokens(UUID sessionId);

    @SqlUpdate("delete from sessions where id = :id and account_id = :accountId")
    void delete(UUID id, UUID accountId);

    /**
     * A denylist row ({@code kind} jti or sid), or a later expiry for one that exists; answers the row as it now is.
     * Its insert, or a later expiry, notifies every instance (004-token-denylist, 018-token-denylist-extended).
     */
    @SqlQuery("""
            insert into token_denylist (kind, value, expires_at) values (:kind, :value, :until)
            on conflict (kind, value) do update set expires_at = greatest(token_denylist.expires_at, excluded.expires_at)
            returning kind || ':' || value as key, expires_at""")
    @RegisterConstructorMapper(Denial.class)
    Denial deny(String kind, String value, Instant until);

    /** A denylist row: {@code jti:<value>} or {@code sid:<value>}, and until when. */
    record Denial(String key, Instant expiresAt) {
    }

    /** Every unexpired denylist row: read at start, and when notifications may have been missed. */
    @SqlQuery("select kind || ':' || value as key, expires_at from token_denylist where expires_at > :now")
    @RegisterConstructorMapper(Denial.class)
    List<Denial> denied(Instant now);

    /** One denylist row's expiry, by its primary key: what a notification of it needs. */
    @SqlQuery("select expires_at from token_denylist where kind = :kind and value = :value")
    Optional<Instant> denial(String kind, String value);

    @SqlUpdate("delete from refresh_tokens where expires_at <= :now")
    int deleteExpiredRefreshTokens(Instant now);

    /** A session without refresh tokens can never be refreshed again; its access tokens do not need its row. */
    @SqlUpdate("""
            delete from sessions s
             where not exists (select 1 from refresh_tokens r where r.session_id = s.id)""")
    int deleteEnded();

    @SqlUpdate("delete from token_denylist where expires_at <= :now")
    int deleteExpiredDenials(Instant now);
}
