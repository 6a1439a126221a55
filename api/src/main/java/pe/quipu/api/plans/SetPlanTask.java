package pe.quipu.api.plans;

import com.fasterxml.jackson.databind.ObjectMapper;
import pe.quipu.api.http.OperatorTask;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * {@code set-plan email=… plan=… [monthlyQuota=…] [rateLimitRpm=…]}: puts the account on the plan; the numbers
 * override the plan's for this account only (enterprise contracts). Omitted numbers mean the plan's.
 */
public final class SetPlanTask extends OperatorTask {

    private final transient SubscriptionService subscriptions;
    private final transient PlanTable plans;

    public SetPlanTask(SubscriptionService subscriptions, PlanTable plans, ObjectMapper json) {
        super("set-plan", List.of("email", "plan", "monthlyQuota", "rateLimitRpm"), json);
        this.subscriptions = subscriptions;
        this.plans = plans;
    }

    /** The answer: the subscription now in force, with the numbers that apply to the account. */
    record Answer(UUID accountId, String subscriptionId, String plan, String previousPlan, long monthlyQuota,
                  int rateLimitRpm, Instant renewsAt, boolean changed) {
    }

    @Override
    protected Object run(Parameters parameters) {
        String email = parameters.required("email");
        String plan = parameters.required("plan");
        Subscription.Overrides overrides = new Subscription.Overrides(
                parameters.nonNegativeLong("monthlyQuota"), parameters.nonNegativeInt("rateLimitRpm"));
        SubscriptionService.PlanChange change = subscriptions.setPlan(email, plan, overrides);
        Subscription s = change.subscription();
        return new Answer(s.accountId(), s.id(), s.plan(), change.previousPlan(), s.effectiveMonthlyQuota(plans),
                s.effectiveRateLimitRpm(plans), s.renewsAt(), change.changed());
    }
}
