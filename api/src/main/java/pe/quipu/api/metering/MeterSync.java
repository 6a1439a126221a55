package pe.quipu.api.metering;

import io.dropwizard.lifecycle.Managed;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import pe.quipu.api.plans.AccountLimitsCache;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The one background task that adds this instance's counts to the shared ones and brings back the totals, every
 * {@code metering.syncInterval} and at once when a request waits for fresh totals (several waiting requests share
 * one sync). It also says this instance is alive (every second), deletes old minute windows (when the clock's minute
 * changes), and on a graceful stop flushes what is left and leaves.
 */
public final class MeterSync implements Managed, UsageMeter.SyncWaiter {

    private static final Logger LOG = LoggerFactory.getLogger(MeterSync.class);
    private static final Duration HEARTBEAT = Duration.ofSeconds(1);
    /** An instance not heard of for this long is no longer counted among those sharing the limits. */
    static final Duration LIVENESS = Duration.ofSeconds(10);
    /** Minute windows are kept a little after they end, for counts still on their way from a slow instance. */
    private static final Duration WINDOW_RETENTION = Duration.ofMinutes(2);
    /** A request waits at most this long for one sync. */
    private static final Duration WAIT = Duration.ofSeconds(2);

    private final UsageMeter meter;
    private final MeteringStore store;
    private final AccountLimitsCache limits;
    private final Clock clock;
    private final Duration interval;
    private final UUID instance = UUID.randomUUID();
    private final Object monitor = new Object();
    private ScheduledExecutorService executor;
    // Guarded by monitor: syncs begun and ended, and whether one is queued to run next.
    private long begun;
    private long ended;
    private boolean queued;
    /** The clock minute in which old windows were last deleted: once a minute, when the minute changes. */
    private Instant cleanedAt;

    public MeterSync(UsageMeter meter, MeteringStore store, AccountLimitsCache limits, Clock clock, Duration interval) {
        this.meter = meter;
        this.store = store;
        this.limits = limits;
        this.clock = clock;
        this.interval = interval;
    }

    @Override
    public void start() {
        // Known to the other instances before the first request: they tighten their allowances at once.
        heartbeat();
        executor = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().name("quipu-meter-sync").daemon()
                .factory());
        executor.scheduleWithFixedDelay(this::syncOnce, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
        executor.scheduleWithFixedDelay(this::heartbeat, HEARTBEAT.toMillis(), HEARTBEAT.toMillis(),
                TimeUnit.MILLISECONDS);
        meter.attach(this);
    }

    /** Flushes what this instance counted, so that a restart loses nothing, and stops counting as alive. */
    @Override
    public void stop() throws InterruptedException {
        meter.detach();
        executor.shutdown();
        if (!executor.awaitTermination(10, TimeUnit.SECONDS)) {
            LOG.warn("The metering sync did not finish in 10 s; flushing anyway");
        }
        syncOnce();
        try {
            store.leave(instance);
        } catch (RuntimeException e) {
            LOG.warn("Could not remove this instance from metering_instances: {}", e.getMessage());
        }
        synchronized (monitor) {
            monitor.notifyAll();
        }
    }

    @Override
    public void awaitFreshSync() {
        long target;
        synchronized (monitor) {
            // The next sync to begin began after this call: it sees every count made before it.
            target = begun + 1;
            if (!queued) {
                queued = true;
                try {
                    executor.execute(this::syncOnce);
                } catch (RejectedExecutionException stopping) {
                    return;
                }
            }
            long deadline = System.nanoTime() + WAIT.toNanos();
            try {
                while (ended < target && !executor.isShutdown()) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        return;
                    }
                    TimeUnit.NANOSECONDS.timedWait(monitor, left);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void syncOnce() {
        long number;
        synchronized (monitor) {
            queued = false;
            number = ++begun;
        }
        try {
            SyncBatch batch = meter.takeBatch();
            if (!batch.isEmpty()) {
                try {
                    meter.applied(batch, store.sync(batch, this::threshold));
                } catch (RuntimeException e) {
                    meter.failed(batch);
                    LOG.warn("Could not sync usage counts; they are kept for the next sync: {}", e.getMessage());
                }
            }
            Instant minute = UsageMeter.minuteStart(clock.instant());
            if (!minute.equals(cleanedAt)) {
                cleanedAt = minute;
                store.deleteOldWindows(minute.minus(WINDOW_RETENTION));
            }
        } catch (RuntimeException e) {
            LOG.warn("Metering sync failed: {}", e.getMessage());
        } finally {
            synchronized (monitor) {
                ended = Math.max(ended, number);
                monitor.notifyAll();
            }
        }
    }

    private Optional<MeteringStore.AlertThreshold> threshold(UUID accountId) {
        return limits.get(accountId).map(l -> new MeteringStore.AlertThreshold(l.monthlyQuota(), l.usageAlertPercent()));
    }

    private void heartbeat() {
        try {
            meter.instances(store.heartbeat(instance, LIVENESS));
        } catch (RuntimeException e) {
            LOG.warn("Could not record this instance as alive: {}", e.getMessage());
        }
    }

    /** For a log line: which instance this is in metering_instances. */
    public UUID instance() {
        return instance;
    }
}
