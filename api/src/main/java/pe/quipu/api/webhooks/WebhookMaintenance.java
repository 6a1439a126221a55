package pe.quipu.api.webhooks;

import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import pe.quipu.api.audit.AuditLog;
import pe.quipu.api.plans.AccountLimits;
import pe.quipu.api.plans.AccountLimitsCache;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * What keeps endpoints and history in bounds, run by every delivery worker on a timer (each step is idempotent, so
 * several instances may run it at once):
 * <ul>
 *   <li>auto-disable: an endpoint whose deliveries have failed for {@code disableAfter} with no success since is set
 *       inactive, with a reason and an audit row;</li>
 *   <li>the plan's cap: after a downgrade, an account's active endpoints beyond its plan's count are set inactive,
 *       newest first, with a reason and an audit row (they stay listed; reactivating one needs room under the cap);</li>
 *   <li>retention: deliveries and their attempts older than {@code retention} are deleted.</li>
 * </ul>
 */
public final class WebhookMaintenance {

    private static final Logger LOG = LoggerFactory.getLogger(WebhookMaintenance.class);
    private static final AuditLog.Origin WORKER = new AuditLog.Origin(null, "webhook worker");
    private static final int PRUNE_CHUNK = 5_000;

    private final Jdbi jdbi;
    private final Clock clock;
    private final AccountLimitsCache limits;
    private final AuditLog audit;
    private final Duration disableAfter;
    private final Duration retention;

    public WebhookMaintenance(Jdbi jdbi, Clock clock, AccountLimitsCache limits, AuditLog audit,
                              WebhooksSettings settings) {
        this.jdbi = jdbi;
        this.clock = clock;
        this.limits = limits;
        this.audit = audit;
        this.disableAfter = settings.disableAfter();
        this.retention = settings.retention();
    }

    /** One round of all three; failures are logged and the next round tries again. */
    public void run() {
        try {
            disableFailing();
            enforcePlanCaps();
            prune();
        } catch (RuntimeException e) {
            LOG.warn("Webhook maintenance failed; it runs again at the next round: {}", e.toString());
        }
    }

    int disableFailing() {
        Instant now = clock.instant();
        String reason = "Deliveries failed for " + describe(disableAfter) + " with no success";
        return jdbi.inTransaction(h -> {
            List<Disabled> disabled = h.attach(Rows.class).disableFailing(now.minus(disableAfter), reason, now);
            for (Disabled d : disabled) {
                audit.record(h, d.accountId(), "webhook.disabled", WORKER, Map.of("webhookId", d.id().toString(),
                        "reason", reason, "failingSince", d.failingSince().toString()));
            }
            return disabled.size();
        });
    }

    int enforcePlanCaps() {
        Instant now = clock.instant();
        int disabled = 0;
        for (ActiveCount account : jdbi.withHandle(h -> h.attach(Rows.class).activeCounts())) {
            int cap = limits.get(account.accountId()).map(AccountLimits::webhookEndpoints).orElse(0);
            if (account.active() <= cap) {
                continue;
            }
            String plan = limits.get(account.accountId()).map(AccountLimits::plan).orElse("?");
            String reason = "The account's plan (" + plan + ") allows " + cap + " active webhook endpoint"
                    + (cap == 1 ? "" : "s");
            disabled += jdbi.inTransaction(h -> {
                List<Disabled> over = h.attach(Rows.class).disableBeyond(account.accountId(), cap, reason, now);
                for (Disabled d : over) {
                    audit.record(h, d.accountId(), "webhook.disabled", WORKER,
                            Map.of("webhookId", d.id().toString(), "reason", reason));
                }
                return over.size();
            });
        }
        return disabled;
    }

    int prune() {
        Instant cutoff = clock.instant().minus(retention);
        int total = 0;
        int deleted;
        do {
            deleted = jdbi.withHandle(h -> h.attach(Rows.class).pruneDeliveries(cutoff, clock.instant(), PRUNE_CHUNK));
            total += deleted;
        } while (deleted == PRUNE_CHUNK);
        if (total > 0) {
            LOG.info("Deleted {} webhook deliveries older than {}", total, describe(retention));
        }
        return total;
    }

    private static String describe(Duration duration) {
        return duration.toDays() >= 1 && duration.toHours() % 24 == 0 ? duration.toDays() + " days"
                : duration.toString();
    }

    public record Disabled(UUID id, UUID accountId, Instant failingSince) {
    }

    public record ActiveCount(UUID accountId, int active) {
    }

    interface Rows {
        @SqlQuery("""
                update webhook_endpoints
                   set active = false, disabled_reason = :reason, updated_at = :now
                 where active and failing_since <= :cutoff
                returning id, account_id, failing_since""")
        @RegisterConstructorMapper(Disabled.class)
        List<Disabled> disableFailing(Instant cutoff, String reason, Instant now);

        @SqlQuery("""
                select account_id, count(*) as active from webhook_endpoints where active
                 group by account_id""")
        @RegisterConstructorMapper(ActiveCount.class)
        List<ActiveCount> activeCounts();

        @SqlQuery("""
                update webhook_endpoints
                   set active = false, disabled_reason = :reason, updated_at = :now
                 where id in (select id from webhook_endpoints
                               where account_id = :accountId and active
                               order by created_at, id
                              offset :cap)
                returning id, account_id, failing_since""")
        @RegisterConstructorMapper(Disabled.class)
        List<Disabled> disableBeyond(UUID accountId, int cap, String reason, Instant now);

        // A delivery whose attempt is under way is left for the next round.
        @SqlUpdate("""
                delete from webhook_deliveries
                 where id in (select id from webhook_deliveries
                               where created_at < :cutoff and (lease_until is null or lease_until <= :now)
                               limit :chunk)""")
        int pruneDeliveries(Instant cutoff, Instant now, int chunk);
    }
}
