package pe.quipu.api.plans;

import io.dropwizard.lifecycle.Managed;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Applies due renewals and cancellations every {@code interval} ({@code subscriptions.applyInterval}). Every
 * instance runs it; {@link SubscriptionService#applyDueChanges} makes each change once however many do.
 */
public final class SubscriptionSchedule implements Managed {

    private static final Logger LOG = LoggerFactory.getLogger(SubscriptionSchedule.class);

    private final SubscriptionService subscriptions;
    private final Duration interval;
    private ScheduledExecutorService scheduler;

    public SubscriptionSchedule(SubscriptionService subscriptions, Duration interval) {
        this.subscriptions = subscriptions;
        this.interval = interval;
    }

    @Override
    public void start() {
        scheduler = Executors.newSingleThreadScheduledExecutor(
                Thread.ofPlatform().daemon().name("quipu-subscriptions").factory());
        scheduler.scheduleWithFixedDelay(this::applyNow, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public void stop() throws InterruptedException {
        if (scheduler != null) {
            scheduler.shutdownNow();
            scheduler.awaitTermination(10, TimeUnit.SECONDS);
        }
    }

    /** Never throws: an exception would end the schedule; the next run retries whatever is still due. */
    private void applyNow() {
        try {
            SubscriptionService.Applied applied = subscriptions.applyDueChanges();
            if (applied.renewed() + applied.canceled() > 0) {
                LOG.info("Subscriptions: {} renewed, {} canceled", applied.renewed(), applied.canceled());
            }
        } catch (RuntimeException e) {
            LOG.warn("Applying due subscription changes failed; the next run retries", e);
        }
    }
}
