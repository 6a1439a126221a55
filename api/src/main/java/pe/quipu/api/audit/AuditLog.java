package pe.quipu.api.audit;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

import java.time.Clock;
import java.time.Instant;
import java.time.Period;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.UUID;

/**
 * The audit log (contract §8): one row per account action, written on the caller's handle so that it commits with
 * the action. Details never hold a secret (no key, password or token): only ids, prefixes, names and plans; nor a
 * value that the account holder's rectification replaces (the email, the nombre), which would outlive it here. Rows
 * are kept {@link #RETENTION} (the export's "last 12 months"), then {@link #prune}d.
 */
public final class AuditLog {

    public static final Period RETENTION = Period.ofMonths(12);

    private final Clock clock;
    private final ObjectMapper json;

    public AuditLog(Clock clock, ObjectMapper json) {
        this.clock = clock;
        this.json = json;
    }

    /** Where an action came from: the client's address and user agent (either may be null, e.g. for operator tasks). */
    public record Origin(String ip, String userAgent) {
        public static final Origin OPERATOR = new Origin(null, "operator");
        /**
         * For a row about the account written on a request that may be someone else's (a failed login, a replayed
         * refresh token): that person's address and user agent are not the account holder's data, so none is kept.
         */
        public static final Origin UNRECORDED = new Origin(null, null);
    }

    public void record(Handle handle, UUID accountId, String action, Origin origin, Map<String, ?> details) {
        handle.attach(AuditRows.class).insert(accountId, clock.instant(), action, origin.ip(),
                truncate(origin.userAgent()), toJson(details));
    }

    /** The instant before which rows are past {@link #RETENTION}: now minus 12 calendar months (UTC). */
    public Instant retentionCutoff() {
        return clock.instant().atOffset(ZoneOffset.UTC).minus(RETENTION).toInstant();
    }

    /** Deletes the rows older than {@link #retentionCutoff()}; returns how many went. */
    public int prune(Handle handle) {
        return handle.attach(AuditRows.class).deleteBefore(retentionCutoff());
    }

    private static String truncate(String userAgent) {
        return userAgent == null || userAgent.length() <= 512 ? userAgent : userAgent.substring(0, 512);
    }

    private String toJson(Map<String, ?> details) {
        try {
            return json.writeValueAsString(details == null ? Map.of() : details);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("audit details are not serialisable", e);
        }
    }

    interface AuditRows {
        @SqlUpdate("""
                insert into audit_log (account_id, at, action, ip, user_agent, details)
                values (:accountId, :at, :action, :ip, :userAgent, cast(:details as jsonb))""")
        void insert(UUID accountId, Instant at, String action, String ip, String userAgent, String details);

        @SqlUpdate("delete from audit_log where at < :cutoff")
        int deleteBefore(Instant cutoff);
    }
}
