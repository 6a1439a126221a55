package pe.quipu.api.plans;

import com.fasterxml.jackson.databind.ObjectMapper;
import pe.quipu.api.http.OperatorTask;

import java.util.List;

/**
 * {@code apply-subscriptions}: applies the renewals and cancellations due now, as the schedule does every minute
 * (e.g. right after a maintenance window). Answers {@code {renewed, canceled, freeRenewed}}.
 */
public final class ApplySubscriptionsTask extends OperatorTask {

    private final transient SubscriptionService subscriptions;

    public ApplySubscriptionsTask(SubscriptionService subscriptions, ObjectMapper json) {
        super("apply-subscriptions", List.of(), json);
        this.subscriptions = subscriptions;
    }

    @Override
    protected Object run(Parameters parameters) {
        return subscriptions.applyDueChanges();
    }
}
