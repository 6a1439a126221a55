package pe.quipu.api.accounts;

import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.UnableToExecuteStatementException;
import pe.quipu.api.audit.AuditLog;
import pe.quipu.api.domain.DomainException.Conflict;
import pe.quipu.api.domain.DomainException.Unauthenticated;
import pe.quipu.api.domain.DomainException.RateLimited;
import pe.quipu.api.domain.Text;
import pe.quipu.core.accounts.EmailIdentity;
import pe.quipu.api.throttle.KeyedThrottle;
import pe.quipu.api.plans.AccountLimitsCache;

import java.sql.SQLException;
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
    private final KeyedThrottle emailChanges;

    /**
     * @param emailChanges email changes per account: each 409 tells that another account holds the address, so
     *                     without a bound one account could list who has an account, or hunt addresses to squat
     */
    public Profiles(Jdbi jdbi, AuditLog audit, AccountLimitsCache limits, KeyedThrottle emailChanges) {
        this.jdbi = jdbi;
        this.audit = audit;
        this.limits = limits;
        this.emailChanges = emailChanges;
    }

    /** What a rectification changes; a null member is left as it is. */
    public record Rectification(String nombre, String email, Integer usageAlertPercent) {
    }

    /** The profile of an account that exists and is not deleted. */
    public Optional<Account> find(UUID accountId) {
        return jdbi.withHandle(h -> h.attach(AccountRows.class).profile(accountId, ""));
    }

    /**
     * Applies the rectification and answers the profile as it now is. Only the members whose value really changes
     * are written, and the audit row ({@code rectification}) names them; nothing changed writes nothing. A taken
     * email is {@link Conflict}; a deleted (or unknown) account, {@link #accountGone()}. A change of email, taken or
     * not, counts against the account's email changes, and is {@link RateLimited} when they are spent (the whole
     * rectification is then refused); a rectification that keeps the email does not count.
     */
    public Account rectify(UUID accountId, Rectification changes, AuditLog.Origin origin) {
        Result result;
        try {
            result = jdbi.inTransaction(h -> {
                AccountRows accounts = h.attach(AccountRows.class);
                Account current = accounts.profile(accountId, "for update").orElseThrow(Profiles::accountGone);
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
                    // Counted before the address is tried, so that a 409 spends one too.
                    emailChanges.take(accountId.toString());
                    changed.add("email");
                }
                if (next.usageAlertPercent() != current.usageAlertPercent()) {
                    changed.add("usageAlertPercent");
                }
                if (changed.isEmpty()) {
                    return new Result(current, false);
                }
                accounts.rectify(accountId, next.nombre(), next.email(), EmailIdentity.of(next.email()),
                        next.usageAlertPercent());
                audit.record(h, accountId, "rectification", origin, Map.of("fields", changed));
                boolean threshold = changed.contains("usageAlertPercent");
                if (threshold) {
                    // Delivered on commit to every instance, this one included (AccountLimitsCache.CHANNEL).
                    accounts.notify(AccountLimitsCache.CHANNEL, accountId.toString());
                }
                return new Result(next, threshold);
            });
        } catch (UnableToExecuteStatementException e) {
            if (e.getCause() instanceof SQLException sql && UNIQUE_VIOLATION.equals(sql.getSQLState())) {
                throw new Conflict(Text.of("accounts.rectify.email_taken"));
            }
            throw e;
        }
        if (result.thresholdChanged()) {
            // The notification arrives a moment later; this instance's next metered request must not wait for it.
            limits.evict(accountId);
        }
        return result.profile();
    }

    private record Result(Account profile, boolean thresholdChanged) {
    }

    /** For now a deleted account's still-unexpired tokens are refused here (410 comes with account deletion). */
    public static Unauthenticated accountGone() {
        return new Unauthenticated(Text.of("domain.account.gone"));
    }
}
