package pe.quipu.api.accounts;

import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.UnableToExecuteStatementException;
import pe.quipu.api.errors.ApiProblem;
import pe.quipu.api.errors.ProblemType;
import pe.quipu.api.plans.AccountLimitsCache;
import pe.quipu.core.audit.AuditLog;

import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * The account holder's profile: {@code GET /v1/me} and its rectification, {@code PATCH /v1/me} (contract §8).
 * A changed alert threshold reaches every instance's {@link AccountLimitsCache} through the same notification a
 * subscription change sends.
 */
public final class Profiles {

    private static final String UNIQUE_VIOLATION = "23505";

    private final Jdbi jdbi;
    private final AuditLog audit;
    private final AccountLimitsCache limits;

    public Profiles(Jdbi jdbi, AuditLog audit, AccountLimitsCache limits) {
        this.jdbi = jdbi;
        this.audit = audit;
        this.limits = limits;
    }

    /** What a rectification changes; a null member is left as it is. */
    public record Rectification(String nombre, String email, Integer usageAlertPercent) {
    }

    /** The profile of an account that exists and is not deleted. */
    public Optional<Account> find(UUID accountId) {
        return jdbi.withHandle(h -> select(h, accountId, false));
    }

    /**
     * Applies the rectification and answers the profile as it now is. Only the members whose value really changes
     * are written, and the audit row ({@code rectification}) names them; nothing changed writes nothing. A taken
     * email is 409 {@code conflict}; a deleted (or unknown) account, 401.
     */
    public Account rectify(UUID accountId, Rectification changes, AuditLog.Origin origin) {
        Account updated;
        boolean thresholdChanged;
        try {
            Result result = jdbi.inTransaction(h -> {
                Account current = select(h, accountId, true).orElseThrow(Profiles::accountGone);
                Account next = new Account(accountId,
                        changes.email() != null ? changes.email() : current.email(),
                        changes.nombre() != null ? changes.nombre() : current.nombre(),
                        changes.usageAlertPercent() != null ? changes.usageAlertPercent() : current.usageAlertPercent(),
                        current.createdAt());
                List<String> changed = new ArrayList<>();
                // An account made by the create-key command may have no nombre yet.
                if (!Objects.equals(next.nombre(), current.nombre())) {
                    changed.add("nombre");
                }
                if (!next.email().equals(current.email())) {
                    changed.add("email");
                }
                if (next.usageAlertPercent() != current.usageAlertPercent()) {
                    changed.add("usageAlertPercent");
                }
                if (changed.isEmpty()) {
                    return new Result(current, false);
                }
                h.createUpdate("""
                                update accounts set nombre = :nombre, email = :email, usage_alert_percent = :percent
                                 where id = :id""")
                        .bind("nombre", next.nombre()).bind("email", next.email())
                        .bind("percent", next.usageAlertPercent()).bind("id", accountId)
                        .execute();
                audit.record(h.getConnection(), accountId, "rectification", origin, Map.of("fields", changed));
                boolean threshold = changed.contains("usageAlertPercent");
                if (threshold) {
                    // Delivered on commit to every instance, this one included (AccountLimitsCache.CHANNEL).
                    h.createQuery("select pg_notify(:channel, :account)")
                            .bind("channel", AccountLimitsCache.CHANNEL).bind("account", accountId.toString())
                            .mapTo(String.class).list();
                }
                return new Result(next, threshold);
            });
            updated = result.profile();
            thresholdChanged = result.thresholdChanged();
        } catch (UnableToExecuteStatementException e) {
            if (e.getCause() instanceof SQLException sql && UNIQUE_VIOLATION.equals(sql.getSQLState())) {
                throw ApiProblem.of(ProblemType.CONFLICT, "Another account already uses this email");
            }
            throw e;
        } catch (SQLException e) {
            throw new IllegalStateException("rectification failed", e);
        }
        if (thresholdChanged) {
            // The notification arrives a moment later; this instance's next metered request must not wait for it.
            limits.evict(accountId);
        }
        return updated;
    }

    private record Result(Account profile, boolean thresholdChanged) {
    }

    private static Optional<Account> select(Handle h, UUID accountId, boolean forUpdate) {
        return h.createQuery("""
                        select id, email, nombre, usage_alert_percent, created_at
                          from accounts where id = :id and deleted_at is null"""
                        + (forUpdate ? " for update" : ""))
                .bind("id", accountId)
                .map((rs, ctx) -> new Account(rs.getObject("id", UUID.class), rs.getString("email"),
                        rs.getString("nombre"), rs.getInt("usage_alert_percent"),
                        rs.getObject("created_at", OffsetDateTime.class).toInstant()))
                .findOne();
    }

    /** For now a deleted account's still-unexpired tokens get 401 here (410 comes with account deletion). */
    public static ApiProblem accountGone() {
        return ApiProblem.of(ProblemType.UNAUTHORIZED, "This account no longer exists");
    }
}
