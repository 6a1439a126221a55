package pe.quipu.api.webhooks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.stripe.exception.SignatureVerificationException;
import com.stripe.net.Webhook;
import com.standardwebhooks.exceptions.WebhookVerificationException;
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
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static pe.quipu.api.webhooks.DeliveryTestKit.PATIENCE;
import static pe.quipu.api.webhooks.DeliveryTestKit.awaitLogged;
import static pe.quipu.api.webhooks.DeliveryTestKit.createEndpoint;
import static pe.quipu.api.webhooks.DeliveryTestKit.endpoint;
import static pe.quipu.api.webhooks.DeliveryTestKit.instant;
import static pe.quipu.api.webhooks.DeliveryTestKit.sendTest;

/**
 * Deliveries as a receiver sees them, checked with the libraries customers verify with, not with our own code:
 * Stripe's {@code Webhook.constructEvent} for {@code x-quipu-signature} and the Standard Webhooks reference library for
 * {@code webhook-*}. Both libraries compare the timestamp with the real time, so the clock starts at the real time.
 */
class SignaturesTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension().with("webhooks.allowPrivateNetworks", "true");

    private WebhookReceiver receiver;
    private String key;
    private String endpoint;
    private String secret;

    @BeforeEach
    void setUp() {
        quipu.clock.set(Instant.now().truncatedTo(ChronoUnit.SECONDS));
        receiver = WebhookReceiver.start();
        key = quipu.accounts.newKey(Scope.WEBHOOKS_MANAGE);
        JsonNode created = createEndpoint(quipu, key, receiver.url("/signed"), "key.created");
        endpoint = created.get("id").asText();
        secret = created.get("secret").asText();
    }

    @AfterEach
    void closeReceiver() {
        receiver.close();
    }

    @Test
    void aDeliveryCarriesEveryHeaderConsistentlyAndBothLibrariesVerifyIt() throws Exception {
        DeliveryTestKit.Sent sent = sendTest(quipu, key, endpoint);
        WebhookReceiver.Received r = receiver.next(PATIENCE);
        String body = r.bodyText();
        long now = quipu.clock.instant().getEpochSecond();

        assertThat(r.headerMap()).containsKeys("content-type", "user-agent", "x-quipu-event", "x-quipu-delivery",
                "x-quipu-timestamp", "x-quipu-signature", "webhook-id", "webhook-timestamp", "webhook-signature");
        assertThat(r.header("content-type")).isEqualTo("application/json");
        assertThat(r.header("user-agent")).isEqualTo("Quipu-Webhooks/1.0");
        assertThat(r.header("x-quipu-event")).isEqualTo("endpoint.test");
        assertThat(r.header("x-quipu-timestamp")).isEqualTo(Long.toString(now));
        assertThat(r.header("webhook-timestamp")).isEqualTo(Long.toString(now));
        assertThat(r.header("x-quipu-signature")).matches("t=" + now + ",v1=[0-9a-f]{64}");
        assertThat(r.header("webhook-signature")).matches("v1,[A-Za-z0-9+/]{43}=");
        assertThat(r.header("webhook-id")).isEqualTo(sent.eventId());
        assertThat(r.header("x-quipu-delivery")).matches("att_[0-9A-Za-z]+");

        JsonNode envelope = JSON.readTree(body);
        List<String> members = new ArrayList<>();
        envelope.fieldNames().forEachRemaining(members::add);
        assertThat(members).containsExactly("id", "type", "createdAt", "data");
        assertThat(envelope.get("id").asText()).isEqualTo(sent.eventId());
        assertThat(envelope.get("type").asText()).isEqualTo("endpoint.test");
        assertThat(instant(envelope.get("createdAt"))).isEqualTo(quipu.clock.instant());
        assertThat(envelope.get("data").get("webhookId").asText()).isEqualTo(endpoint);

        assertThat(Webhook.constructEvent(body, r.header("x-quipu-signature"), secret).getId())
                .isEqualTo(sent.eventId());
        new com.standardwebhooks.Webhook(secret).verify(body, r.headerMap());

        JsonNode record = awaitLogged(quipu, key, endpoint, sent.deliveryId(), 1);
        assertThat(record.get("attemptLog").get(0).get("id").asText()).isEqualTo(r.header("x-quipu-delivery"));
    }

    @Test
    void aSignatureMadeWithAnotherSecretOrOverOtherBytesIsRejected() throws Exception {
        sendTest(quipu, key, endpoint);
        WebhookReceiver.Received r = receiver.next(PATIENCE);
        String other = createEndpoint(quipu, key, receiver.url("/other"), "key.created").get("secret").asText();
        String tampered = r.bodyText().replace("endpoint.test", "endpoint.tesT");

        assertThatThrownBy(() -> Webhook.constructEvent(r.bodyText(), r.header("x-quipu-signature"), other))
                .isInstanceOf(SignatureVerificationException.class);
        assertThatThrownBy(() -> Webhook.constructEvent(tampered, r.header("x-quipu-signature"), secret))
                .isInstanceOf(SignatureVerificationException.class);
        assertThatThrownBy(() -> new com.standardwebhooks.Webhook(other).verify(r.bodyText(), r.headerMap()))
                .isInstanceOf(WebhookVerificationException.class);
        assertThatThrownBy(() -> new com.standardwebhooks.Webhook(secret).verify(tampered, r.headerMap()))
                .isInstanceOf(WebhookVerificationException.class);
    }

    @Test
    void everyAttemptSendsTheSameBytesAndEventIdSignedAfresh() throws Exception {
        receiver.then(Behaviour.status(500));
        DeliveryTestKit.Sent sent = sendTest(quipu, key, endpoint);
        WebhookReceiver.Received first = receiver.next(PATIENCE);
        awaitLogged(quipu, key, endpoint, sent.deliveryId(), 1);
        quipu.clock.advance(Duration.ofMinutes(1));
        WebhookReceiver.Received second = receiver.next(PATIENCE);

        assertThat(second.body()).isEqualTo(first.body());
        assertThat(second.header("webhook-id")).isEqualTo(first.header("webhook-id")).isEqualTo(sent.eventId());
        assertThat(second.header("x-quipu-delivery")).isNotEqualTo(first.header("x-quipu-delivery"));
        assertThat(Long.parseLong(second.header("x-quipu-timestamp")))
                .isEqualTo(Long.parseLong(first.header("x-quipu-timestamp")) + 60);
        assertThat(second.header("webhook-timestamp")).isEqualTo(second.header("x-quipu-timestamp"));
        assertThat(second.header("x-quipu-signature")).isNotEqualTo(first.header("x-quipu-signature"));
        assertThat(second.header("webhook-signature")).isNotEqualTo(first.header("webhook-signature"));
        for (WebhookReceiver.Received r : List.of(first, second)) {
            assertThat(Webhook.constructEvent(r.bodyText(), r.header("x-quipu-signature"), secret).getId())
                    .isEqualTo(sent.eventId());
            new com.standardwebhooks.Webhook(secret).verify(r.bodyText(), r.headerMap());
        }
        JsonNode record = awaitLogged(quipu, key, endpoint, sent.deliveryId(), 2);
        assertThat(record.get("attemptLog")).extracting(a -> a.get("id").asText())
                .containsExactly(first.header("x-quipu-delivery"), second.header("x-quipu-delivery"));
    }

    @Test
    void aRotatedSecretKeepsSigningBesideTheNewOneForTwentyFourHours() throws Exception {
        String oldSecret = secret;
        Instant rotatedAt = quipu.clock.instant();
        HttpResponse<String> rotated = quipu.post("/v1/webhooks/" + endpoint + "/rotate", key, null, "");
        assertThat(rotated.statusCode()).as(rotated.body()).isEqualTo(200);
        String newSecret = quipu.body(rotated).get("secret").asText();
        assertThat(newSecret).startsWith("whsec_").isNotEqualTo(oldSecret);
        assertThat(instant(quipu.body(rotated).get("previousSecretExpiresAt")))
                .isEqualTo(rotatedAt.plus(Duration.ofHours(24)));

        DeliveryTestKit.Sent during = sendTest(quipu, key, endpoint);
        WebhookReceiver.Received r = receiver.next(PATIENCE);
        String body = r.bodyText();
        long t = quipu.clock.instant().getEpochSecond();
        Map<String, String> quipuSignature = signatureParts(r.header("x-quipu-signature"));

        assertThat(quipuSignature).containsOnlyKeys("t", "v1", "v0");
        assertThat(quipuSignature.get("t")).isEqualTo(Long.toString(t));
        // Stripe's library reads the v1 signatures: the new secret's.
        assertThat(Webhook.constructEvent(body, r.header("x-quipu-signature"), newSecret).getId())
                .isEqualTo(during.eventId());
        assertThatThrownBy(() -> Webhook.Signature.verifyHeader(body, "t=" + t + ",v1=" + quipuSignature.get("v1"),
                oldSecret, 0)).isInstanceOf(SignatureVerificationException.class);
        // v0 is the same scheme under the old secret: Stripe's library verifies it when it is handed as v1.
        assertThat(Webhook.Signature.verifyHeader(body, "t=" + t + ",v1=" + quipuSignature.get("v0"), oldSecret, 300,
                quipu.clock)).isTrue();
        // Standard Webhooks lists a signature per secret and accepts either.
        assertThat(r.header("webhook-signature").split(" ")).hasSize(2);
        new com.standardwebhooks.Webhook(newSecret).verify(body, r.headerMap());
        new com.standardwebhooks.Webhook(oldSecret).verify(body, r.headerMap());
        assertThat(endpoint(quipu, key, endpoint).get("previousSecretExpiresAt").isNull()).isFalse();

        quipu.clock.set(rotatedAt.plus(Duration.ofHours(24)).plusSeconds(1));
        DeliveryTestKit.Sent after = sendTest(quipu, key, endpoint);
        WebhookReceiver.Received late = receiver.next(PATIENCE);
        String lateBody = late.bodyText();
        long lateT = quipu.clock.instant().getEpochSecond();

        assertThat(signatureParts(late.header("x-quipu-signature"))).containsOnlyKeys("t", "v1");
        assertThat(Webhook.Signature.verifyHeader(lateBody, late.header("x-quipu-signature"), newSecret, 0)).isTrue();
        assertThat(Webhook.constructEvent(lateBody, late.header("x-quipu-signature"), newSecret, 300, quipu.clock)
                .getId()).isEqualTo(after.eventId());
        assertThatThrownBy(() -> Webhook.Signature.verifyHeader(lateBody, late.header("x-quipu-signature"),
                oldSecret, 0)).isInstanceOf(SignatureVerificationException.class);
        // The Standard Webhooks library refuses a timestamp a day ahead of the real time; its own signer stands in.
        String only = late.header("webhook-signature");
        assertThat(only.split(" ")).hasSize(1);
        assertThat(only).isEqualTo(new com.standardwebhooks.Webhook(newSecret)
                .sign(late.header("webhook-id"), lateT, lateBody));
        assertThat(only).isNotEqualTo(new com.standardwebhooks.Webhook(oldSecret)
                .sign(late.header("webhook-id"), lateT, lateBody));
        assertThat(endpoint(quipu, key, endpoint).get("previousSecretExpiresAt").isNull()).isTrue();
    }

    /** The members of {@code t=…,v1=…,v0=…}; a repeated name fails (none is expected). */
    private static Map<String, String> signatureParts(String header) {
        Map<String, String> parts = new LinkedHashMap<>();
        for (String part : header.split(",")) {
            String[] pair = part.split("=", 2);
            assertThat(parts.put(pair[0], pair[1])).as("%s repeated in %s", pair[0], header).isNull();
        }
        return parts;
    }
}
