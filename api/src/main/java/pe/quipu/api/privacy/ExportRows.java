package pe.quipu.api.privacy;

import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.customizer.FetchSize;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * The SQL of the personal-data export: the throttle, and one read per section. Sections that can grow without a
 * bound (keys, sessions, subscriptions, the audit log, events, usage months and days, deliveries) are {@link Stream}s read
 * through a cursor ({@link FetchSize}, inside the export's transaction), so rows are written as they arrive and never
 * held all at once. The caller closes each stream.
 */
interface ExportRows {

    /** Rows fetched per round trip; the audit log's details may be several KB each. */
    int FETCH = 256;

    /** The account's deletion and last export, locked: concurrent exports (any instance) take turns here. */
    @SqlQuery("select id, deleted_at, last_exported_at from accounts where id = :id for no key update")
    @RegisterConstructorMapper(ExportState.class)
    Optional<ExportState> lockExportState(UUID id);

    record ExportState(UUID id, Instant deletedAt, Instant lastExportedAt) {
    }

    @SqlUpdate("update accounts set last_exported_at = :now where id = :id")
    void noteExport(UUID id, Instant now);

    /** Gives back an export that failed on Quipu's side: the previous time again, unless another export came since. */
    @SqlUpdate("""
            update accounts set last_exported_at = :previous
             where id = :id and last_exported_at = :noted""")
    void restoreExport(UUID id, Instant noted, Instant previous);

    // ---- user and auth.profile

    /** Every column of {@code accounts} but the password hash, of which only its presence is shown. */
    record UserRow(UUID id, String email, String nombre, int usageAlertPercent, boolean isAdmin, Instant createdAt,
                   Instant deletedAt, Instant lastExportedAt, boolean passwordSet) {
    }

    @SqlQuery("""
            select id, email, nombre, usage_alert_percent, is_admin, created_at, deleted_at, last_exported_at,
                   password_hash is not null as password_set
              from accounts where id = :id""")
    @RegisterConstructorMapper(UserRow.class)
    Optional<UserRow> user(UUID id);

    /** The latest login: the newest session, or the newest login in the audit log (sessions end, rows stay). */
    @SqlQuery("""
            select greatest((select max(created_at) from sessions where account_id = :id),
                            (select max(at) from audit_log where account_id = :id and action = 'login'))""")
    Optional<Instant> lastLoginAt(UUID id);

    // ---- auth.sessions

    /**
     * A session without its tokens: {@code lastUsedAt} is its latest token issue (the login or the latest refresh),
     * {@code expiresAt} when its unspent refresh token expires (null: it can no longer be refreshed).
     */
    record SessionRow(UUID id, Instant createdAt, Instant lastUsedAt, Instant expiresAt, String ip, String userAgent,
                      Instant revokedAt) {
    }

    @SqlQuery("""
            select s.id, s.created_at, max(r.issued_at) as last_used_at,
                   max(r.expires_at) filter (where r.used_at is null) as expires_at,
                   s.ip, s.user_agent, s.revoked_at
              from sessions s left join refresh_tokens r on r.session_id = s.id
             where s.account_id = :id
             group by s.id
             order by s.created_at desc, s.id desc""")
    @RegisterConstructorMapper(SessionRow.class)
    @FetchSize(FETCH)
    Stream<SessionRow> sessions(UUID id);

    // ---- apiKeys

    /** A key without its hash. */
    record KeyRow(UUID id, String name, String prefix, List<String> scopes, String status, Instant createdAt,
                  Instant lastUsedAt, Instant expiresAt, Instant revokedAt, UUID replacedBy) {
    }

    @SqlQuery("""
            select id, name, prefix, scopes, status, created_at, last_used_at, expires_at, revoked_at, replaced_by
              from api_keys where account_id = :id
             order by created_at desc, id desc""")
    @RegisterConstructorMapper(KeyRow.class)
    @FetchSize(FETCH)
    Stream<KeyRow> keys(UUID id);

    // ---- subscription

    record SubscriptionRow(String id, String plan, Long monthlyQuota, Integer rateLimitRpm, Instant startedAt,
                           Instant renewsAt, Instant cancelAt, Instant endedAt) {
    }

    /** The current subscription first (ended_at is null), then the ended ones, the latest first. */
    @SqlQuery("""
            select id, plan, monthly_quota, rate_limit_rpm, started_at, renews_at, cancel_at, ended_at
              from subscriptions where account_id = :id
             order by ended_at desc nulls first, started_at desc, id""")
    @RegisterConstructorMapper(SubscriptionRow.class)
    @FetchSize(FETCH)
    Stream<SubscriptionRow> subscriptions(UUID id);

    // ---- webhooks

    /** An endpoint without its secrets; {@code previousSecretUntil} says until when a rotated secret signed. */
    record EndpointRow(UUID id, String url, List<String> events, boolean active, String disabledReason, String host,
                       int port, String pinnedAddress, Instant failingSince, Instant previousSecretUntil,
                       Instant createdAt, Instant updatedAt) {
    }

    /** At most the plan's cap of endpoints (50 on any plan), so a list. */
    @SqlQuery("""
            select w.id, w.url,
                   coalesce(array_agg(s.event_type order by s.event_type)
                            filter (where s.event_type is not null), '{}') as events,
                   w.active, w.disabled_reason, w.host, w.port, host(w.pinned_address) as pinned_address,
                   w.failing_since, w.previous_secret_until, w.created_at, w.updated_at
              from webhook_endpoints w
              left join webhook_subscriptions s on s.endpoint_id = w.id
             where w.account_id = :id
             group by w.id
             order by w.created_at, w.id""")
    @RegisterConstructorMapper(EndpointRow.class)
    List<EndpointRow> endpoints(UUID id);

    /**
     * A delivery (without the envelope it carries: the event is in the export's {@code events}) with one of its
     * attempts, or with null attempt columns when it has none. Rows of one delivery are adjacent, attempts oldest
     * first.
     */
    record DeliveryAttemptRow(String id, String eventId, String eventType, String status, int attempts,
                              Integer responseCode, Integer latencyMs, Instant lastAttemptAt, Instant nextAttemptAt,
                              Instant createdAt, String error, String attemptId, Instant attemptedAt,
                              Integer attemptResponseCode, Integer attemptLatencyMs, String attemptError,
                              String attemptResponseBody) {
    }

    /** The endpoint's latest {@code limit} deliveries, newest first, each with its attempts. */
    @SqlQuery("""
            select d.id, d.event_id, d.event_type, d.status, d.attempts, d.response_code, d.latency_ms,
                   d.last_attempt_at, d.next_attempt_at, d.created_at, d.error,
                   a.id as attempt_id, a.attempted_at, a.response_code as attempt_response_code,
                   a.latency_ms as attempt_latency_ms, a.error as attempt_error,
                   a.response_body as attempt_response_body
              from (select * from webhook_deliveries where endpoint_id = :endpointId
                     order by created_at desc, id desc limit :limit) d
              left join webhook_attempts a on a.delivery_id = d.id
             order by d.created_at desc, d.id desc, a.attempted_at, a.id""")
    @RegisterConstructorMapper(DeliveryAttemptRow.class)
    @FetchSize(FETCH)
    Stream<DeliveryAttemptRow> deliveries(UUID endpointId, int limit);

    // ---- auditLog

    record AuditRow(Instant at, String action, String ip, String userAgent, String details) {
    }

    /** Rows since {@code since}, newest first, at most {@code limit}. */
    @SqlQuery("""
            select at, action, ip, user_agent, details::text as details
              from audit_log where account_id = :id and at >= :since
             order by at desc, id desc
             limit :limit""")
    @RegisterConstructorMapper(AuditRow.class)
    @FetchSize(FETCH)
    Stream<AuditRow> auditLog(UUID id, Instant since, int limit);

    // ---- events

    /** An outbox event about the account: what webhooks announce (key, subscription, usage and test events). */
    record EventRow(String id, String type, Instant createdAt, String data) {
    }

    @SqlQuery("""
            select id, type, created_at, data::text as data
              from events where account_id = :id
             order by seq desc""")
    @RegisterConstructorMapper(EventRow.class)
    @FetchSize(FETCH)
    Stream<EventRow> events(UUID id);

    // ---- watchlists

    /** One RUC of one list, with its list's fields; {@code ruc} null for an empty list. */
    record WatchlistRucRow(String name, int count, Instant createdAt, Instant updatedAt, String ruc) {
    }

    @SqlQuery("""
            select w.name, w.rucs as count, w.created_at, w.updated_at, rtrim(r.ruc) as ruc
              from watchlists w left join watchlist_rucs r on r.watchlist_id = w.id
             where w.account_id = :id
             order by w.name, r.ruc""")
    @RegisterConstructorMapper(WatchlistRucRow.class)
    @FetchSize(FETCH)
    Stream<WatchlistRucRow> watchlistRucs(UUID id);

    // ---- usageHistory

    /** Quota units counted in one Lima calendar month ({@code month}: YYYY-MM). */
    record UsageMonthRow(String month, long used, Instant alertedAt) {
    }

    @SqlQuery("""
            select to_char(period, 'YYYY-MM') as month, used, alerted_at
              from usage_counters where account_id = :id
             order by period desc""")
    @RegisterConstructorMapper(UsageMonthRow.class)
    @FetchSize(FETCH)
    Stream<UsageMonthRow> usageMonths(UUID id);

    // ---- usageDays

    /** Requests answered and quota units spent in one Lima day. */
    record UsageDayRow(LocalDate day, long requests, long units) {
    }

    @SqlQuery("""
            select day, requests, units
              from usage_days where account_id = :id
             order by day desc""")
    @RegisterConstructorMapper(UsageDayRow.class)
    @FetchSize(FETCH)
    Stream<UsageDayRow> usageDays(UUID id);
}
