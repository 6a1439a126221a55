package pe.quipu.api.plans;

import io.dropwizard.core.setup.Environment;
import pe.quipu.api.platform.Periodic;
import pe.quipu.api.platform.Platform;

import java.time.Duration;
import java.util.Map;

/**
 * The plans feature assembled: the plan table, each account's limits (cached, kept in step with its subscription by
 * notification, on the server and the worker alike), and, for the API, the plans route, the due renewals and
 * cancellations on a schedule, and the operator's plan tasks.
 */
public final class Plans {

    private final Platform platform;
    private final PlanTable table;
    private final AccountLimitsCache limits;

    public Plans(Platform platform, Map<String, PlanSettings> plans) {
        this.platform = platform;
        this.table = new PlanTable(plans);
        this.limits = new AccountLimitsCache(platform.jdbi(), table);
        platform.notifications().on(AccountLimitsCache.CHANNEL, limits::onNotification, limits::evictAll);
    }

    /** The API's parts; returns this. */
    public Plans serving(Environment environment, SubscriptionsSettings settings) {
        environment.jersey().register(new PlansResource(table));
        SubscriptionService subscriptions = new SubscriptionService(platform.jdbi(), platform.clock(), table,
                platform.audit(), platform.outbox(), limits);
        Duration applyInterval = settings.getApplyInterval().toJavaDuration();
        platform.manage(Periodic.every("quipu-subscriptions", applyInterval, applyInterval,
                subscriptions::applyDueChangesAndLog));
        new SetPlanTask(subscriptions, table, platform.json()).addTo(environment.admin());
        new CancelSubscriptionTask(subscriptions, platform.json()).addTo(environment.admin());
        new ApplySubscriptionsTask(subscriptions, platform.json()).addTo(environment.admin());
        return this;
    }

    public PlanTable table() {
        return table;
    }

    /** Each account's limits as this instance sees them. */
    public AccountLimitsCache limits() {
        return limits;
    }
}
