package pe.quipu.api.webhooks;

import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.dropwizard.lifecycle.Managed;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetAddress;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The delivery worker of one process (an API instance, or {@code ./quipu deliver}): fans new outbox events out into
 * deliveries, claims due deliveries under a lease, sends each attempt asynchronously and records the results in
 * batches. A notification on {@code quipu_webhooks} wakes it at once; otherwise it looks every
 * {@code pollInterval}, which is how retries fall due. In flight at once: at most {@code concurrency} attempts, at most
 * {@code perEndpointConcurrency} to one endpoint, so a slow endpoint never holds back the others.
 */
public final class DeliveryWorker implements Managed {

    public static final String CHANNEL = "quipu_webhooks";
    private static final Logger LOG = LoggerFactory.getLogger(DeliveryWorker.class);
    /** A lease outlives the attempt's timeout by this much before another worker may take the delivery. */
    static final Duration LEASE_MARGIN = Duration.ofSeconds(30);
    private static final int MAX_CLAIM = 500;
    private static final int MAX_RECORD_BATCH = 1_000;

    private final DeliveryStore store;
    private final AddressRules rules;
    private final Clock clock;
    private final List<Duration> schedule;
    private final Duration timeout;
    private final Duration pollInterval;
    private final int concurrency;
    private final int perEndpoint;
    private final WebhookSender sender;
    private final UUID owner = UUID.randomUUID();
    private final AtomicInteger inFlight = new AtomicInteger();
    private final Map<UUID, AtomicInteger> inFlightByEndpoint = new ConcurrentHashMap<>();
    private final BlockingQueue<Boolean> wake = new ArrayBlockingQueue<>(1);
    private final BlockingQueue<DeliveryStore.Recorded> finished = new LinkedBlockingQueue<>();
    private volatile boolean running;
    /** Set when a stop stops waiting: attempts finishing later are handed back rather than recorded. */
    private volatile boolean abandoning;
    /** A notification came: fan out before claiming (otherwise fan-out runs once per poll interval). */
    private volatile boolean notified = true;
    /** The last claim took all it asked for: more is due, so let finished attempts gather before claiming again. */
    private boolean backlog;
    private Thread dispatcher;
    private Thread recorder;

    private final Meter succeeded;
    private final Meter failed;
    private final Counter attemptOutcomes;
    private final Histogram attemptSeconds;

    public DeliveryWorker(DeliveryStore store, AddressRules rules, Clock clock, WebhooksSettings settings,
                          MetricRegistry metrics, PrometheusRegistry prometheus) {
        this.attemptOutcomes = Counter.builder().name("quipu_webhook_attempts_total")
                .help("Webhook delivery attempts by outcome: delivered, or the failure's kind (timeout, http_status,"
                        + " connection_refused, dns, tls, redirect, body_too_large, invalid_response, blocked_address)")
                .labelNames("outcome").register(prometheus);
        this.attemptOutcomes.labelValues(DeliveryStatus.DELIVERED);
        this.attemptSeconds = Histogram.builder().name("quipu_webhook_attempt_duration_seconds")
                .help("How long webhook delivery attempts took, to the receiver's answer or the failure")
                .classicOnly().classicUpperBounds(0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15).register(prometheus);
        this.succeeded = metrics.meter(MetricRegistry.name(DeliveryWorker.class, "attempts", "succeeded"));
        this.failed = metrics.meter(MetricRegistry.name(DeliveryWorker.class, "attempts", "failed"));
        metrics.registerGauge(MetricRegistry.name(DeliveryWorker.class, "attempts", "inFlight"), inFlight::get);
        this.store = store;
        this.rules = rules;
        this.clock = clock;
        this.schedule = settings.retrySchedule();
        this.timeout = settings.timeout();
        this.pollInterval = settings.pollInterval();
        this.concurrency = settings.getConcurrency();
        this.perEndpoint = settings.getPerEndpointConcurrency();
        this.sender = new WebhookSender(timeout, perEndpoint);
    }

    /** Look for work now (a notification: new events, new deliveries, a manual retry). */
    public void wake() {
        notified = true;
        signal();
    }

    private void signal() {
        wake.offer(Boolean.TRUE);
    }

    /** Attempts under way on this worker. */
    public int inFlight() {
        return inFlight.get();
    }

    @Override
    public void start() throws Exception {
        sender.start();
        running = true;
        dispatcher = Thread.ofPlatform().name("quipu-webhook-dispatcher").daemon().start(this::dispatch);
        recorder = Thread.ofPlatform().name("quipu-webhook-recorder").daemon().start(this::recordLoop);
    }

    /**
     * Stops claiming, lets the attempts in flight finish for up to the timeout, records them, and hands back the
     * deliveries whose attempts did not finish (they are due again at once, for any worker).
     */
    @Override
    public void stop() throws Exception {
        if (dispatcher == null) {
            sender.close();
            return;
        }
        running = false;
        wake();
        dispatcher.join(5_000);
        long deadline = System.nanoTime() + timeout.toNanos() + TimeUnit.SECONDS.toNanos(1);
        while (inFlight.get() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        // The recorder finishes the batch it is writing (never interrupted mid-write) and stops within its poll.
        abandoning = true;
        recorder.join(10_000);
        flush();
        try {
            int handedBack = store.release(owner);
            if (handedBack > 0) {
                LOG.info("Handed back {} webhook deliveries whose attempts had not finished", handedBack);
            }
        } finally {
            sender.close();
        }
    }

    private void dispatch() {
        long lastFanOut = 0;
        while (running) {
            try {
                if (notified || System.nanoTime() - lastFanOut >= pollInterval.toNanos()) {
                    notified = false;
                    lastFanOut = System.nanoTime();
                    // One batch per round, then a claim: a burst of events starts being sent while it is fanned out.
                    if (fanOutOnce()) {
                        notified = true;
                    }
                }
                claimAndSend();
            } catch (RuntimeException e) {
                LOG.warn("Webhook delivery round failed; trying again: {}", e.toString());
            }
            if (notified) {
                continue;
            }
            try {
                if (wake.poll(pollInterval.toMillis(), TimeUnit.MILLISECONDS) != null && backlog && !notified) {
                    // Woken by a finished attempt with more due: claim for several at once, not one by one.
                    Thread.sleep(2);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** Fans out one batch of events; true when there may be more. */
    private boolean fanOutOnce() {
        Instant now = clock.instant();
        return store.fanOut(now, now.plus(schedule.getFirst())) == DeliveryStore.FAN_OUT_BATCH;
    }

    private void claimAndSend() {
        backlog = false;
        while (running) {
            int free = concurrency - inFlight.get();
            if (free <= 0) {
                backlog = true;
                return;
            }
            int asked = Math.min(free, MAX_CLAIM);
            Map<UUID, Integer> room = new HashMap<>();
            inFlightByEndpoint.forEach((endpoint, count) -> room.put(endpoint, perEndpoint - count.get()));
            Instant now = clock.instant();
            List<DeliveryStore.Claimed> claimed =
                    store.claim(owner, now, now.plus(timeout).plus(LEASE_MARGIN), asked, room, perEndpoint);
            claimed.forEach(this::send);
            if (claimed.size() < asked) {
                return;
            }
            backlog = true;
        }
    }

    private void send(DeliveryStore.Claimed delivery) {
        inFlight.incrementAndGet();
        inFlightByEndpoint.computeIfAbsent(delivery.endpointId(), id -> new AtomicInteger()).incrementAndGet();
        Instant now = clock.instant();
        String attemptId = Ids.newId("att_");
        try {
            InetAddress pinned = InetAddress.ofLiteral(delivery.pinnedAddress());
            // The rules may have changed since the URL was pinned (a setting, a range): they hold at every attempt.
            if (rules.refusal(pinned).isPresent()) {
                finish(delivery, attemptId, now, WebhookSender.Outcome.blocked());
                return;
            }
            boolean inGrace = delivery.previousSecret() != null && delivery.previousSecretUntil() != null
                    && now.isBefore(delivery.previousSecretUntil());
            Signatures.Secrets secrets = new Signatures.Secrets(delivery.secret(),
                    inGrace ? delivery.previousSecret() : null);
            sender.send(new WebhookSender.Attempt(delivery.endpointId(), attemptId, delivery.eventId(), delivery.eventType(),
                            URI.create(delivery.url()), pinned, delivery.body(), secrets, now.getEpochSecond()))
                    .whenComplete((outcome, failure) -> finish(delivery, attemptId, now, failure == null ? outcome
                            : new WebhookSender.Outcome(null, WebhookSender.kindOf(failure), 0, null)));
        } catch (RuntimeException e) {
            LOG.error("Could not start an attempt of delivery {}", delivery.id(), e);
            finish(delivery, attemptId, now,
                    new WebhookSender.Outcome(null, ErrorKind.CONNECTION_REFUSED, 0, null));
        }
    }

    /**
     * Schedules what follows the attempt (the next delay counts from its end) and queues its record, stamped with
     * when it was sent; frees the attempt's slots.
     */
    private void finish(DeliveryStore.Claimed delivery, String attemptId, Instant sentAt,
                        WebhookSender.Outcome outcome) {
        try {
            if (abandoning) {
                return;
            }
            Instant now = clock.instant();
            int attempts = delivery.attempts() + 1;
            String status;
            Instant next = null;
            (outcome.error() == null ? succeeded : failed).mark();
            attemptOutcomes.labelValues(outcome.error() == null ? DeliveryStatus.DELIVERED : outcome.error()).inc();
            attemptSeconds.observe(outcome.latencyMs() / 1000.0);
            if (outcome.error() == null) {
                status = DeliveryStatus.DELIVERED;
            } else if (attempts >= schedule.size()) {
                status = DeliveryStatus.FAILED_PERMANENT;
            } else {
                status = DeliveryStatus.RETRYING;
                next = now.plus(schedule.get(attempts));
            }
            finished.add(new DeliveryStore.Recorded(delivery.id(), delivery.endpointId(), attemptId, sentAt, status,
                    next, outcome.responseCode(), outcome.latencyMs(), outcome.error(), outcome.responseBody()));
        } finally {
            inFlightByEndpoint.computeIfPresent(delivery.endpointId(),
                    (id, count) -> count.decrementAndGet() <= 0 ? null : count);
            inFlight.decrementAndGet();
            signal();
        }
    }

    private void recordLoop() {
        while (!abandoning) {
            try {
                DeliveryStore.Recorded first = finished.poll(50, TimeUnit.MILLISECONDS);
                if (first != null) {
                    List<DeliveryStore.Recorded> batch = new ArrayList<>();
                    batch.add(first);
                    finished.drainTo(batch, MAX_RECORD_BATCH - 1);
                    record(batch);
                }
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** Records what is left (on stop). */
    private void flush() {
        List<DeliveryStore.Recorded> rest = new ArrayList<>();
        finished.drainTo(rest);
        record(rest);
    }

    private void record(List<DeliveryStore.Recorded> batch) {
        try {
            store.record(owner, batch);
        } catch (RuntimeException e) {
            // Not recorded: the leases run out and the deliveries are attempted again (at least once, never lost).
            LOG.warn("Could not record {} webhook attempts; they will be attempted again: {}", batch.size(),
                    e.toString());
        }
    }
}
