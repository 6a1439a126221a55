package pe.quipu.api.plans;

import com.fasterxml.jackson.databind.ObjectMapper;
import pe.quipu.api.http.OperatorTask;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * {@code cancel-subscription email=… [immediate=true]}: cancels the account's paid subscription at the end of its
 * paid period, or now; the account then falls back to free and {@code subscription.canceled} is emitted.
 */
public final class CancelSubscriptionTask extends OperatorTask {

    private final transient SubscriptionService subscriptions;

    public CancelSubscriptionTask(SubscriptionService subscriptions, ObjectMapper json) {
        super("cancel-subscription", List.of("email", "immediate"), json);
        this.subscriptions = subscriptions;
    }

    /** {@code effective}: the account is already on free; otherwise it will be at {@code cancelAt}. */
    record Answer(UUID accountId, String subscriptionId, String plan, Instant cancelAt, boolean effective,
                  boolean changed) {
    }

    @Override
    protected Object run(Parameters parameters) {
        String email = parameters.required("email");
        boolean immediate = parameters.flag("immediate", false);
        SubscriptionService.Cancellation c = subscriptions.cancel(email, immediate);
        return new Answer(c.canceled().accountId(), c.canceled().id(), c.canceled().plan(), c.cancelAt(),
                c.effective(), c.changed());
    }
}
