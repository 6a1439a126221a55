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
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static pe.quipu.api.testing.ProblemAssert.assertProblem;
import static pe.quipu.api.webhooks.DeliveryTestKit.KEY_CREATED;
import static pe.quipu.api.webhooks.DeliveryTestKit.PATIENCE;
import static pe.quipu.api.webhooks.DeliveryTestKit.awaitDeliveryOf;
import static pe.quipu.api.webhooks.DeliveryTestKit.awaitLogged;
import static pe.quipu.api.webhooks.DeliveryTestKit.createEndpoint;
import static pe.quipu.api.webhooks.DeliveryTestKit.deliveries;
import static pe.quipu.api.webhooks.DeliveryTestKit.emitKeyCreated;
import static pe.quipu.api.webhooks.DeliveryTestKit.endpoint;
import static pe.quipu.api.webhooks.DeliveryTestKit.sendTest;

/**
 * What the maintenance timer does, by moving the clock (it runs every 200 ms here): an endpoint whose deliveries have
 * failed for five days with no success is set inactive with a reason; deliveries and their attempts are deleted 30
 * days after they were created. Two attempts per delivery here ({@code 0s, 1m}).
 */
class AutoDisableTest {

    private static final Instant START = QuipuExtension.START;
    /** Several maintenance rounds: how long "nothing changes" is watched for. */
    private static final Duration ROUNDS = Duration.ofSeconds(1);

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension()
            .with("webhooks.allowPrivateNetworks", "true")
            .with("webhooks.maintenanceInterval", "200ms")
            .with("webhooks.retrySchedule", "0s,1m");

    private WebhookReceiver receiver;
    private String key;
    private UUID account;

    @BeforeEach
    void setUp() {
        receiver = WebhookReceiver.start();
        key = quipu.accounts.newKey(Scope.WEBHOOKS_MANAGE);
        account = quipu.accounts.accountOf(key);
    }

    @AfterEach
    void closeReceiver() {
        receiver.close();
    }

    @Test
    void anEndpointFailingForFiveDaysWithoutSuccessIsDisabledUntilReactivated() {
        try (WebhookReceiver healthy = WebhookReceiver.start()) {
            receiver.otherwise(Behaviour.status(500));
            String failing = createEndpoint(quipu, key, receiver.url("/failing"), KEY_CREATED).get("id").asText();
            String other = createEndpoint(quipu, key, healthy.url("/healthy"), KEY_CREATED).get("id").asText();
            failTestDelivery(failing);

            quipu.clock.set(START.plus(Duration.ofDays(5)).minus(Duration.ofMinutes(10)));
            failTestDelivery(failing);
            assertStaysActive(failing);
            assertThat(auditActions()).doesNotContain("webhook.disabled");

            quipu.clock.set(START.plus(Duration.ofDays(5)).plusSeconds(1));
            await().atMost(PATIENCE).until(() -> !endpoint(quipu, key, failing).get("active").asBoolean());
            JsonNode disabled = endpoint(quipu, key, failing);
            assertThat(disabled.get("disabledReason").asText()).contains("5 days");
            assertThat(auditActions()).containsOnlyOnce("webhook.disabled");
            assertThat(endpoint(quipu, key, other).get("active").asBoolean()).isTrue();

            String event = emitKeyCreated(quipu, account);
            awaitDeliveryOf(quipu, key, other, event);
            assertThat(healthy.next(PATIENCE).header("webhook-id")).isEqualTo(event);
            assertThat(deliveries(quipu, key, failing)).extracting(d -> d.get("eventId").asText())
                    .doesNotContain(event);
            assertProblem(quipu.post("/v1/webhooks/" + failing + "/test", key, null, ""), 409, "conflict");

            HttpResponse<String> reactivated = quipu.patch("/v1/webhooks/" + failing, key, "application/json",
                    "{\"active\":true}");
            assertThat(reactivated.statusCode()).as(reactivated.body()).isEqualTo(200);
            assertThat(quipu.body(reactivated).get("active").asBoolean()).isTrue();
            assertThat(quipu.body(reactivated).get("disabledReason").isNull()).isTrue();
            // The failure streak ended with the reactivation: the next rounds leave it active.
            assertStaysActive(failing);
            receiver.otherwise(Behaviour.status(204));
            DeliveryTestKit.Sent test = sendTest(quipu, key, failing);
            assertThat(awaitLogged(quipu, key, failing, test.deliveryId(), 1).get("status").asText())
                    .isEqualTo("delivered");
        }
    }

    @Test
    void aSuccessBetweenFailuresStartsTheFiveDaysAgain() {
        receiver.otherwise(Behaviour.status(500));
        String endpoint = createEndpoint(quipu, key, receiver.url("/flaky"), KEY_CREATED).get("id").asText();
        failTestDelivery(endpoint);

        quipu.clock.set(START.plus(Duration.ofDays(1)));
        receiver.otherwise(Behaviour.status(204));
        DeliveryTestKit.Sent success = sendTest(quipu, key, endpoint);
        assertThat(awaitLogged(quipu, key, endpoint, success.deliveryId(), 1).get("status").asText())
                .isEqualTo("delivered");

        Instant failingAgain = START.plus(Duration.ofDays(2));
        quipu.clock.set(failingAgain);
        receiver.otherwise(Behaviour.status(500));
        failTestDelivery(endpoint);

        quipu.clock.set(START.plus(Duration.ofDays(5)).plusSeconds(1));
        assertStaysActive(endpoint);

        quipu.clock.set(failingAgain.plus(Duration.ofDays(5)).plusSeconds(1));
        await().atMost(PATIENCE).until(() -> !endpoint(quipu, key, endpoint).get("active").asBoolean());
        assertThat(endpoint(quipu, key, endpoint).get("disabledReason").isNull()).isFalse();
    }

    @Test
    void deliveriesAndTheirAttemptsAreDeletedThirtyDaysAfterCreation() {
        receiver.then(Behaviour.status(500)).otherwise(Behaviour.status(204));
        String endpoint = createEndpoint(quipu, key, receiver.url("/kept"), KEY_CREATED).get("id").asText();
        DeliveryTestKit.Sent old = sendTest(quipu, key, endpoint);
        awaitLogged(quipu, key, endpoint, old.deliveryId(), 1);
        quipu.clock.set(START.plus(Duration.ofMinutes(1)));
        awaitLogged(quipu, key, endpoint, old.deliveryId(), 2);
        quipu.clock.set(START.plus(Duration.ofDays(10)));
        DeliveryTestKit.Sent recent = sendTest(quipu, key, endpoint);
        awaitLogged(quipu, key, endpoint, recent.deliveryId(), 1);
        List<String> both = List.of(old.deliveryId(), recent.deliveryId());
        assertThat(deliveryRows(endpoint)).isEqualTo(2);
        assertThat(attemptRows(both)).isEqualTo(3);

        quipu.clock.set(START.plus(Duration.ofDays(30)).minusSeconds(60));
        await().during(ROUNDS).atMost(ROUNDS.plusSeconds(5)).until(() -> deliveryRows(endpoint) == 2);

        quipu.clock.set(START.plus(Duration.ofDays(30)).plusSeconds(60));
        await().atMost(PATIENCE).until(() -> deliveryRows(endpoint) == 1);
        assertThat(attemptRows(both)).isEqualTo(1);
        assertThat(attemptRows(List.of(old.deliveryId()))).isZero();
        assertProblem(quipu.get("/v1/webhooks/" + endpoint + "/deliveries/" + old.deliveryId(), key), 404,
                "not_found");
        assertThat(deliveries(quipu, key, endpoint)).extracting(d -> d.get("id").asText())
                .containsExactly(recent.deliveryId());
    }

    /** A test event that fails both attempts (the receiver answers errors), ending failed_permanent. */
    private void failTestDelivery(String endpoint) {
        DeliveryTestKit.Sent sent = sendTest(quipu, key, endpoint);
        assertThat(awaitLogged(quipu, key, endpoint, sent.deliveryId(), 1).get("status").asText())
                .isEqualTo("retrying");
        quipu.clock.advance(Duration.ofMinutes(1));
        assertThat(awaitLogged(quipu, key, endpoint, sent.deliveryId(), 2).get("status").asText())
                .isEqualTo("failed_permanent");
    }

    private void assertStaysActive(String endpoint) {
        await().during(ROUNDS).atMost(ROUNDS.plusSeconds(5))
                .until(() -> endpoint(quipu, key, endpoint).get("active").asBoolean());
    }

    private List<String> auditActions() {
        return quipu.database.jdbi().withHandle(h -> h.createQuery(
                        "select action from audit_log where account_id = :account order by id")
                .bind("account", account).mapTo(String.class).list());
    }

    private int deliveryRows(String endpoint) {
        return quipu.database.jdbi().withHandle(h -> h.createQuery(
                        "select count(*) from webhook_deliveries where endpoint_id = :endpoint")
                .bind("endpoint", UUID.fromString(endpoint)).mapTo(Integer.class).one());
    }

    private int attemptRows(List<String> deliveryIds) {
        return quipu.database.jdbi().withHandle(h -> h.createQuery(
                        "select count(*) from webhook_attempts where delivery_id = any(:ids)")
                .bind("ids", deliveryIds.toArray(String[]::new)).mapTo(Integer.class).one());
    }
}
