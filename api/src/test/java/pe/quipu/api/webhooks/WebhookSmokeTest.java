package pe.quipu.api.webhooks;

import com.fasterxml.jackson.databind.JsonNode;
import com.stripe.net.Webhook;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.api.testing.WebhookReceiver;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class WebhookSmokeTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension().with("webhooks.allowPrivateNetworks", "true");
    static final WebhookReceiver receiver = WebhookReceiver.start();

    @AfterAll
    static void stop() {
        receiver.close();
    }

    @Test
    void aTestEventIsDeliveredSignedForStripeAndStandardWebhooks() throws Exception {
        quipu.clock.set(Instant.now());
        String key = quipu.accounts.newKey(Scope.WEBHOOKS_MANAGE);
        HttpResponse<String> created = quipu.post("/v1/webhooks", key, "application/json",
                "{\"url\":\"" + receiver.url("/hook") + "\",\"events\":[\"key.created\"]}");
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        JsonNode endpoint = quipu.body(created);
        String secret = endpoint.get("secret").asText();
        HttpResponse<String> test = quipu.post("/v1/webhooks/" + endpoint.get("id").asText() + "/test", key, null, "");
        assertThat(test.statusCode()).as(test.body()).isEqualTo(202);
        WebhookReceiver.Received r = receiver.next(Duration.ofSeconds(5));
        String body = r.bodyText();
        assertThat(Webhook.constructEvent(body, r.header("x-quipu-signature"), secret).getId())
                .isEqualTo(quipu.body(test).get("eventId").asText());
        new com.standardwebhooks.Webhook(secret).verify(body, r.headerMap());
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            JsonNode list = quipu.body(quipu.get("/v1/webhooks/" + endpoint.get("id").asText() + "/deliveries", key));
            assertThat(list.get("items").get(0).get("status").asText()).isEqualTo("delivered");
        });
    }
}
