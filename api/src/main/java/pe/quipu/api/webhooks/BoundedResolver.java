package pe.quipu.api.webhooks;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A resolver whose answer is waited for at most {@link #TIMEOUT}: a webhook URL's host is resolved inside a request,
 * and the system's resolver waits as long as the name servers let it (an unanswering server is retried for tens of
 * seconds, and the wait cannot be interrupted). Lookups run on a few threads of their own; the request waits for its
 * answer up to the bound, queueing included, and is then refused with {@link TimedOut}. A lookup still under way
 * keeps its thread until the system gives up; once all threads and the queue are taken, a new lookup is refused at
 * once rather than queued without end.
 */
final class BoundedResolver implements WebhookUrls.Resolver {

    /** How long a request waits for its host's addresses. */
    static final Duration TIMEOUT = Duration.ofSeconds(5);
    /** Lookups under way at once, on one instance; more wait in a queue of {@link #QUEUED}. */
    static final int THREADS = 4;
    static final int QUEUED = 64;

    /**
     * The lookup did not answer within {@code waited}; zero when it could not even start (every thread and the queue
     * taken).
     */
    static final class TimedOut extends UnknownHostException {
        private final transient Duration waited;

        TimedOut(String host, Duration waited) {
            super(host);
            this.waited = waited;
        }

        Duration waited() {
            return waited;
        }
    }

    private final WebhookUrls.Resolver resolver;
    private final Duration timeout;
    private final ThreadPoolExecutor lookups;

    BoundedResolver(WebhookUrls.Resolver resolver, Duration timeout) {
        this.resolver = resolver;
        this.timeout = timeout;
        AtomicInteger counter = new AtomicInteger();
        // Daemon threads that end when idle: nothing to stop when the application stops, and no thread kept by an
        // instance that resolves nothing.
        this.lookups = new ThreadPoolExecutor(THREADS, THREADS, 30, TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(QUEUED), task -> {
                    Thread thread = new Thread(task, "quipu-webhook-dns-" + counter.incrementAndGet());
                    thread.setDaemon(true);
                    return thread;
                });
        this.lookups.allowCoreThreadTimeOut(true);
    }

    /** Lookups under way or queued. */
    int pending() {
        return lookups.getActiveCount() + lookups.getQueue().size();
    }

    @Override
    public List<InetAddress> resolve(String host) throws UnknownHostException {
        Future<List<InetAddress>> answer;
        try {
            answer = lookups.submit(() -> resolver.resolve(host));
        } catch (RejectedExecutionException e) {
            throw new TimedOut(host, Duration.ZERO);
        }
        try {
            return answer.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            answer.cancel(true); // leaves the queue if it never started; a lookup under way runs on regardless
            throw new TimedOut(host, timeout);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownHostException unknown) {
                throw unknown;
            }
            throw new IllegalStateException("resolving a webhook host failed", e.getCause());
        } catch (InterruptedException e) {
            answer.cancel(true);
            Thread.currentThread().interrupt();
            throw new TimedOut(host, timeout);
        }
    }
}
