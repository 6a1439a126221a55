package pe.quipu.api.plans;

import java.time.Instant;
import java.util.UUID;

/**
 * A row of {@code subscriptions}: the account's plan from {@code startedAt}, with its per-account overrides (null: the
 * plan's number applies). {@code cancelAt} is null, or the end of the paid period ({@code renewsAt}) when a
 * cancellation is scheduled.
 */
public record Subscription(String id, UUID accountId, String plan, Long monthlyQuota, Integer rateLimitRpm,
                           Instant startedAt, Instant renewsAt, Instant cancelAt) {

    public Overrides overrides() {
        return new Overrides(monthlyQuota, rateLimitRpm);
    }

    /** The numbers in force: the overrides where set, the plan's otherwise (a plan gone from config.yml counts as free). */
    public long effectiveMonthlyQuota(PlanTable plans) {
        return monthlyQuota != null ? monthlyQuota : plans.resolve(plan).monthlyQuota();
    }

    public int effectiveRateLimitRpm(PlanTable plans) {
        return rateLimitRpm != null ? rateLimitRpm : plans.resolve(plan).rateLimitRpm();
    }

    Subscription withCancelAt(Instant at) {
        return new Subscription(id, accountId, plan, monthlyQuota, rateLimitRpm, startedAt, renewsAt, at);
    }

    Subscription withRenewsAt(Instant at) {
        return new Subscription(id, accountId, plan, monthlyQuota, rateLimitRpm, startedAt, at, cancelAt);
    }

    /** One account's numbers instead of its plan's (set-plan's monthlyQuota, rateLimitRpm); null keeps the plan's. */
    public record Overrides(Long monthlyQuota, Integer rateLimitRpm) {
        public static final Overrides NONE = new Overrides(null, null);
    }
}
