package pe.quipu.api.plans;

import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.LoadingCache;
import org.jdbi.v3.core.Jdbi;

import java.time.Duration;
import java.util.Optional;
import java.util.UUID;

/**
 * Each account's {@link AccountLimits}, cached in memory so that the metered hot path reads no table. A change to
 * a subscription (any instance, any process) notifies {@code quipu_subscriptions} with the account id and evicts
 * it; {@link #evict} is also called by whoever changes an account's alert threshold. The expiry is only a safety
 * net for a missed notification.
 */
public final class AccountLimitsCache {

    public static final String CHANNEL = "quipu_subscriptions";

    private final Jdbi jdbi;
    private final PlanTable plans;
    private final LoadingCache<UUID, Optional<AccountLimits>> cache;

    public AccountLimitsCache(Jdbi jdbi, PlanTable plans) {
        this.jdbi = jdbi;
        this.plans = plans;
        this.cache = Caffeine.newBuilder()
                .maximumSize(200_000)
                .expireAfterWrite(Duration.ofMinutes(10))
                .build(this::load);
    }

    /** The account's limits; empty when it has no current subscription (deleted, or unknown id). */
    public Optional<AccountLimits> get(UUID accountId) {
        return cache.get(accountId);
    }

    public void evict(UUID accountId) {
        cache.invalidate(accountId);
    }

    /** A notification's payload: the account id. */
    public void onNotification(String payload) {
        try {
            evict(UUID.fromString(payload));
        } catch (IllegalArgumentException e) {
            evictAll();
        }
    }

    public void evictAll() {
        cache.invalidateAll();
    }

    private Optional<AccountLimits> load(UUID accountId) {
        return jdbi.withHandle(h -> h.attach(SubscriptionRows.class).currentPlan(accountId)).map(current -> {
            Plan plan = plans.resolve(current.plan());
            long quota = current.monthlyQuota() == null ? plan.monthlyQuota() : current.monthlyQuota();
            int rpm = current.rateLimitRpm() == null ? plan.rateLimitRpm() : current.rateLimitRpm();
            return new AccountLimits(accountId, current.id(), current.plan(), quota, rpm, plan.batchCap(),
                    plan.webhookEndpoints(), plan.watchlists(), plan.watchlistRucs(), current.usageAlertPercent(),
                    current.renewsAt());
        });
    }
}
