package pe.quipu.api.platform;

import io.dropwizard.lifecycle.Managed;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Runs a piece of background work on a daemon thread of its own, with a fixed delay between runs, while the
 * application runs. A failing run is logged and the next one tries again (an exception escaping would end the
 * schedule). With {@link #alsoOnStop()}, a graceful stop waits for a run in progress and then runs the work once
 * more, for work that must not lose what it holds in memory.
 */
public final class Periodic implements Managed {

    /** The work; it may throw, and the next run tries again. */
    @FunctionalInterface
    public interface Work {
        void run() throws Exception;
    }

    private static final Logger LOG = LoggerFactory.getLogger(Periodic.class);

    private final String name;
    private final Duration firstDelay;
    private final Duration delay;
    private final Work work;
    private final boolean onStop;
    private ScheduledExecutorService scheduler;

    private Periodic(String name, Duration firstDelay, Duration delay, Work work, boolean onStop) {
        this.name = name;
        this.firstDelay = firstDelay;
        this.delay = delay;
        this.work = work;
        this.onStop = onStop;
    }

    /** @param name names the thread and the log lines */
    public static Periodic every(String name, Duration firstDelay, Duration delay, Work work) {
        return new Periodic(name, firstDelay, delay, work, false);
    }

    public Periodic alsoOnStop() {
        return new Periodic(name, firstDelay, delay, work, true);
    }

    @Override
    public void start() {
        scheduler = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name(name).factory());
        scheduler.scheduleWithFixedDelay(this::runQuietly, firstDelay.toMillis(), delay.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    @Override
    public void stop() throws InterruptedException {
        if (scheduler != null) {
            if (onStop) {
                scheduler.shutdown();
            } else {
                scheduler.shutdownNow();
            }
            scheduler.awaitTermination(10, TimeUnit.SECONDS);
        }
        if (onStop) {
            runQuietly();
        }
    }

    private void runQuietly() {
        try {
            work.run();
        } catch (Exception e) {
            LOG.warn("{}: this run failed, the next one tries again: {}", name, e.toString());
        }
    }
}
