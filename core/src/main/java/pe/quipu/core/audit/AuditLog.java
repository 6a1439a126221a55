package pe.quipu.core.audit;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Instant;
import java.time.Period;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.UUID;

/**
 * The audit log (contract §8): one row per account action, written on the caller's transaction so that it commits
 * with the action. Details never hold a secret (no key, password or token): only ids, prefixes, names and plans.
 * Rows are kept {@link #RETENTION} (the export's "last 12 months"), then {@link #prune}d.
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
    }

    public void record(Connection c, UUID accountId, String action, Origin origin, Map<String, ?> details)
            throws SQLException {
        try (PreparedStatement insert = c.prepareStatement("""
                insert into audit_log (account_id, at, action, ip, user_agent, details)
                values (?, ?, ?, ?, ?, ?::jsonb)""")) {
            insert.setObject(1, accountId);
            insert.setTimestamp(2, Timestamp.from(clock.instant()));
            insert.setString(3, action);
            insert.setString(4, origin.ip());
            insert.setString(5, truncate(origin.userAgent()));
            insert.setString(6, toJson(details));
            insert.executeUpdate();
        }
    }

    /** The instant before which rows are past {@link #RETENTION}: now minus 12 calendar months (UTC). */
    public Instant retentionCutoff() {
        return clock.instant().atOffset(ZoneOffset.UTC).minus(RETENTION).toInstant();
    }

    /** Deletes the rows older than {@link #retentionCutoff()}; returns how many went. */
    public int prune(Connection c) throws SQLException {
        try (PreparedStatement delete = c.prepareStatement("delete from audit_log where at < ?")) {
            delete.setTimestamp(1, Timestamp.from(retentionCutoff()));
            return delete.executeUpdate();
        }
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
}
