package pe.quipu.api.webhooks;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.api.testing.WebhookReceiver;
import pe.quipu.api.testing.WebhookReceiver.Behaviour;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static pe.quipu.api.testing.ProblemAssert.assertProblem;
import static pe.quipu.api.webhooks.DeliveryTestKit.PATIENCE;
import static pe.quipu.api.webhooks.DeliveryTestKit.awaitLogged;
import static pe.quipu.api.webhooks.DeliveryTestKit.createEndpoint;
import static pe.quipu.api.webhooks.DeliveryTestKit.deliveries;
import static pe.quipu.api.webhooks.DeliveryTestKit.instant;
import static pe.quipu.api.webhooks.DeliveryTestKit.sendTest;

/**
 * The default retry schedule ({@code [0s, 1m, 5m, 30m, 2h, 6h, 24h, 48h]}) followed attempt by attempt by moving the
 * clock, which otherwise stands still: each attempt is due its delay after the end of the one before, not a second
 * earlier; after the eighth failure the delivery is {@code failed_permanent}. Then manual retries.
 */
class RetryScheduleTest {

    private static final List<Duration> SCHEDULE = List.of(Duration.ZERO, Duration.ofMinutes(1),
            Duration.ofMinutes(5), Duration.ofMinutes(30), Duration.ofHours(2), Duration.ofHours(6),
            Duration.ofHours(24), Duration.ofHours(48));
    /** How long "nothing is sent" is watched for: several of the worker's polls (250 ms). */
    private static final Duration QUIET = Duration.ofMillis(800);

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension().with("webhooks.allowPrivateNetworks", "true");

    private WebhookReceiver receiver;
    private String key;
    private String endpoint;

    @BeforeEach
    void setUp() {
        receiver = WebhookReceiver.start();
        key = quipu.accounts.newKey(Scope.WEBHOOKS_MANAGE);
        endpoint = createEndpoint(quipu, key, receiver.url("/hook"), "key.created").get("id").asText();
    }

    @AfterEach
    void closeReceiver() {
        receiver.close();
    }

    @Test
    void aFailingDeliveryFollowsTheScheduleAttemptByAttemptThenFailsPermanently() {
        receiver.otherwise(Behaviour.status(500));
        DeliveryTestKit.Sent sent = sendTest(quipu, key, endpoint);
        receiver.next(PATIENCE);
        JsonNode record = awaitLogged(quipu, key, endpoint, sent.deliveryId(), 1);
        Instant attemptEnd = QuipuExtension.START;
        assertRetrying(record, 1, attemptEnd, attemptEnd.plus(SCHEDULE.get(1)));
        List<Instant> attemptTimes = new ArrayList<>(List.of(attemptEnd));

        for (int n = 2; n <= SCHEDULE.size(); n++) {
            Instant due = attemptEnd.plus(SCHEDULE.get(n - 1));
            quipu.clock.set(due.minusSeconds(1));
            assertThat(receiver.anyWithin(QUIET)).as("attempt %d sent a second before it is due", n).isFalse();

            quipu.clock.set(due);
            receiver.next(PATIENCE);
            record = awaitLogged(quipu, key, endpoint, sent.deliveryId(), n);
            attemptEnd = due;
            attemptTimes.add(due);
            if (n < SCHEDULE.size()) {
                assertRetrying(record, n, due, due.plus(SCHEDULE.get(n)));
            }
        }

        assertThat(record.get("status").asText()).isEqualTo("failed_permanent");
        assertThat(record.get("attempts").asInt()).isEqualTo(8);
        assertThat(record.get("nextAttemptAt").isNull()).as("nextAttemptAt of %s", record).isTrue();
        assertThat(record.get("error").asText()).isEqualTo("http_status");
        assertThat(record.get("responseCode").asInt()).isEqualTo(500);
        List<Instant> logged = new ArrayList<>();
        record.get("attemptLog").forEach(a -> logged.add(instant(a.get("attemptedAt"))));
        assertThat(logged).containsExactlyElementsOf(attemptTimes);

        quipu.clock.advance(Duration.ofDays(3));
        assertThat(receiver.anyWithin(QUIET)).as("an attempt after the last").isFalse();
        assertThat(receiver.all()).hasSize(8);
        List<JsonNode> history = deliveries(quipu, key, endpoint);
        assertThat(history).extracting(d -> d.get("id").asText()).containsExactly(sent.deliveryId());
        assertThat(history.getFirst().get("status").asText()).isEqualTo("failed_permanent");
    }

    @Test
    void aDeliveryThatSucceedsAtTheThirdAttemptIsDelivered() {
        receiver.then(Behaviour.status(500), Behaviour.status(503)).otherwise(Behaviour.status(204));
        DeliveryTestKit.Sent sent = sendTest(quipu, key, endpoint);
        assertRetrying(awaitLogged(quipu, key, endpoint, sent.deliveryId(), 1), 1, QuipuExtension.START,
                QuipuExtension.START.plus(SCHEDULE.get(1)));
        Instant second = QuipuExtension.START.plus(SCHEDULE.get(1));
        quipu.clock.set(second);
        assertRetrying(awaitLogged(quipu, key, endpoint, sent.deliveryId(), 2), 2, second,
                second.plus(SCHEDULE.get(2)));
        quipu.clock.set(second.plus(SCHEDULE.get(2)));

        JsonNode record = awaitLogged(quipu, key, endpoint, sent.deliveryId(), 3);
        assertThat(record.get("status").asText()).isEqualTo("delivered");
        assertThat(record.get("attempts").asInt()).isEqualTo(3);
        assertThat(record.get("responseCode").asInt()).isEqualTo(204);
        assertThat(record.get("error").isNull()).as("error of %s", record).isTrue();
        assertThat(record.get("nextAttemptAt").isNull()).as("nextAttemptAt of %s", record).isTrue();
        assertThat(record.get("attemptLog")).extracting(a -> a.get("responseCode").asInt())
                .containsExactly(500, 503, 204);
        for (int i = 0; i < 3; i++) {
            receiver.next(PATIENCE);
        }
        quipu.clock.advance(Duration.ofDays(3));
        assertThat(receiver.anyWithin(QUIET)).as("an attempt after the delivery").isFalse();
    }

    @Test
    void aManualRetryOfAPermanentlyFailedDeliveryStartsAFreshSeries() {
        receiver.otherwise(Behaviour.status(500));
        DeliveryTestKit.Sent sent = sendTest(quipu, key, endpoint);
        JsonNode record = awaitLogged(quipu, key, endpoint, sent.deliveryId(), 1);
        for (int n = 2; n <= SCHEDULE.size(); n++) {
            quipu.clock.set(instant(record.get("nextAttemptAt")));
            record = awaitLogged(quipu, key, endpoint, sent.deliveryId(), n);
        }
        assertThat(record.get("status").asText()).isEqualTo("failed_permanent");
        List<String> attemptIds = new ArrayList<>();
        record.get("attemptLog").forEach(a -> attemptIds.add(a.get("id").asText()));
        receiver.otherwise(Behaviour.status(204));
        Instant retriedAt = quipu.clock.instant().plus(Duration.ofHours(1));
        quipu.clock.set(retriedAt);

        HttpResponse<String> retried = retry(sent.deliveryId());

        assertThat(retried.statusCode()).as(retried.body()).isEqualTo(202);
        JsonNode fresh = quipu.body(retried);
        assertThat(fresh.get("id").asText()).isEqualTo(sent.deliveryId());
        assertThat(fresh.get("status").asText()).isEqualTo("pending");
        assertThat(fresh.get("attempts").asInt()).isZero();
        assertThat(instant(fresh.get("nextAttemptAt"))).isEqualTo(retriedAt);
        record = awaitLogged(quipu, key, endpoint, sent.deliveryId(), 9);
        assertThat(record.get("status").asText()).isEqualTo("delivered");
        assertThat(record.get("attempts").asInt()).isEqualTo(1);
        assertThat(record.get("responseCode").asInt()).isEqualTo(204);
        assertThat(instant(record.get("lastAttemptAt"))).isEqualTo(retriedAt);
        assertThat(record.get("attemptLog")).extracting(a -> a.get("id").asText())
                .startsWith(attemptIds.toArray(String[]::new))
                .doesNotHaveDuplicates();
        assertThat(receiver.all()).hasSize(9);
        assertThat(receiver.all()).extracting(r -> r.header("webhook-id")).containsOnly(sent.eventId());
    }

    /**
     * Read while its attempts are being recorded, a delivery's record always agrees with its attempt log (the two are
     * read from one snapshot): readers poll without pause while the schedule is walked through.
     */
    @Test
    void aDeliveryReadWhileAttemptsAreRecordedAgreesWithItsLog() throws Exception {
        receiver.otherwise(Behaviour.status(500));
        DeliveryTestKit.Sent sent = sendTest(quipu, key, endpoint);
        AtomicBoolean walking = new AtomicBoolean(true);
        AtomicInteger reads = new AtomicInteger();
        List<Future<?>> readers = new ArrayList<>();
        try (ExecutorService pool = Executors.newFixedThreadPool(3)) {
            for (int i = 0; i < 3; i++) {
                readers.add(pool.submit(() -> {
                    while (walking.get()) {
                        DeliveryTestKit.assertAgreesWithItsLog(
                                DeliveryTestKit.delivery(quipu, key, endpoint, sent.deliveryId()));
                        reads.incrementAndGet();
                    }
                    return null;
                }));
            }
            try {
                JsonNode record = awaitLogged(quipu, key, endpoint, sent.deliveryId(), 1);
                for (int n = 2; n <= SCHEDULE.size(); n++) {
                    quipu.clock.set(instant(record.get("nextAttemptAt")));
                    record = awaitLogged(quipu, key, endpoint, sent.deliveryId(), n);
                }
            } finally {
                walking.set(false);
            }
            for (Future<?> reader : readers) {
                reader.get();
            }
        }
        assertThat(reads.get()).isPositive();
    }

    @Test
    void aRetryWhileAnAttemptIsInFlightIsAConflict() {
        receiver.then(Behaviour.slow(Duration.ofSeconds(3)));
        DeliveryTestKit.Sent sent = sendTest(quipu, key, endpoint);
        receiver.next(PATIENCE);

        assertProblem(retry(sent.deliveryId()), 409, "conflict");

        JsonNode record = awaitLogged(quipu, key, endpoint, sent.deliveryId(), 1);
        assertThat(record.get("status").asText()).isEqualTo("delivered");
        assertThat(record.get("attempts").asInt()).isEqualTo(1);
        assertThat(receiver.anyWithin(QUIET)).as("a second attempt").isFalse();
    }

    @Test
    void aRetryOnAnInactiveEndpointIsAConflictAndSendsNothing() {
        receiver.otherwise(Behaviour.status(500));
        DeliveryTestKit.Sent sent = sendTest(quipu, key, endpoint);
        awaitLogged(quipu, key, endpoint, sent.deliveryId(), 1);
        receiver.next(PATIENCE);
        assertThat(quipu.patch("/v1/webhooks/" + endpoint, key, "application/json", "{\"active\":false}")
                .statusCode()).isEqualTo(200);

        assertProblem(retry(sent.deliveryId()), 409, "conflict");

        assertThat(receiver.anyWithin(QUIET)).as("an attempt to an inactive endpoint").isFalse();
        assertThat(DeliveryTestKit.delivery(quipu, key, endpoint, sent.deliveryId()).get("attempts").asInt())
                .isEqualTo(1);
    }

    @Test
    void aRetryOfAnUnknownDeliveryIsNotFound() {
        String otherEndpoint = createEndpoint(quipu, key, receiver.url("/other"), "key.created").get("id").asText();
        DeliveryTestKit.Sent other = sendTest(quipu, key, otherEndpoint);
        awaitLogged(quipu, key, otherEndpoint, other.deliveryId(), 1);

        assertProblem(retry("dlv_000000000000000000000000"), 404, "not_found");
        assertProblem(retry("not-a-delivery"), 404, "not_found");
        assertProblem(retry(other.deliveryId()), 404, "not_found");
    }

    private HttpResponse<String> retry(String deliveryId) {
        return quipu.post("/v1/webhooks/" + endpoint + "/deliveries/" + deliveryId + "/retry", key, null, "");
    }

    private static void assertRetrying(JsonNode record, int attempts, Instant attemptedAt, Instant next) {
        assertThat(record.get("status").asText()).as("%s", record).isEqualTo("retrying");
        assertThat(record.get("attempts").asInt()).as("%s", record).isEqualTo(attempts);
        assertThat(instant(record.get("lastAttemptAt"))).as("%s", record).isEqualTo(attemptedAt);
        assertThat(instant(record.get("nextAttemptAt"))).as("%s", record).isEqualTo(next);
    }
}
