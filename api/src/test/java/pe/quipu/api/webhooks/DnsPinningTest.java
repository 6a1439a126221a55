package pe.quipu.api.webhooks;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.testing.QuipuClient;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.api.testing.WebhookReceiver;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static pe.quipu.api.testing.ProblemAssert.assertProblem;
import static pe.quipu.api.webhooks.DeliveryTestKit.KEY_CREATED;
import static pe.quipu.api.webhooks.DeliveryTestKit.PATIENCE;
import static pe.quipu.api.webhooks.DeliveryTestKit.awaitDeliveryOf;
import static pe.quipu.api.webhooks.DeliveryTestKit.awaitLogged;
import static pe.quipu.api.webhooks.DeliveryTestKit.createEndpoint;
import static pe.quipu.api.webhooks.DeliveryTestKit.emitKeyCreated;
import static pe.quipu.api.webhooks.DeliveryTestKit.endpoint;
import static pe.quipu.api.webhooks.DeliveryTestKit.endpointBody;
import static pe.quipu.api.webhooks.DeliveryTestKit.sendTest;

/**
 * DNS pinning, with a resolver the test controls ({@code quipu.dns}): the address a host resolved to when the URL was
 * set is the one every attempt connects to, whatever the name resolves to later (DNS rebinding), while the request
 * still names the host; a new URL is checked and pinned again. Attempts time out after 2 s here.
 */
class DnsPinningTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension()
            .with("webhooks.allowPrivateNetworks", "true")
            .with("webhooks.timeout", "2s");

    private WebhookReceiver receiver;
    private String key;

    @BeforeEach
    void setUp() {
        receiver = WebhookReceiver.start();
        key = quipu.accounts.newKey(Scope.WEBHOOKS_MANAGE);
    }

    @AfterEach
    void closeReceiver() {
        receiver.close();
    }

    @Test
    void deliveriesGoToTheAddressPinnedAtCreationWhateverTheNameResolvesToLater() {
        quipu.dns.set("hooks.test", "127.0.0.1");
        String url = "http://hooks.test:" + receiver.port() + "/x";
        String endpoint = createEndpoint(quipu, key, url, KEY_CREATED).get("id").asText();
        quipu.dns.set("hooks.test", "10.9.9.9");

        DeliveryTestKit.Sent test = sendTest(quipu, key, endpoint);
        WebhookReceiver.Received received = receiver.next(PATIENCE);
        assertThat(received.path()).isEqualTo("/x");
        assertThat(received.header("host")).isEqualTo("hooks.test:" + receiver.port());
        assertThat(awaitLogged(quipu, key, endpoint, test.deliveryId(), 1).get("status").asText())
                .isEqualTo("delivered");

        String event = emitKeyCreated(quipu, quipu.accounts.accountOf(key));
        String delivery = awaitDeliveryOf(quipu, key, endpoint, event);
        assertThat(receiver.next(PATIENCE).header("webhook-id")).isEqualTo(event);
        assertThat(awaitLogged(quipu, key, endpoint, delivery, 1).get("status").asText()).isEqualTo("delivered");
        assertThat(endpoint(quipu, key, endpoint).get("url").asText()).isEqualTo(url);
    }

    @Test
    void anUpdateThatLeavesTheUrlKeepsThePin() {
        quipu.dns.set("steady.hooks.test", "127.0.0.1");
        String endpoint = createEndpoint(quipu, key, "http://steady.hooks.test:" + receiver.port() + "/steady",
                KEY_CREATED).get("id").asText();
        quipu.dns.set("steady.hooks.test", "127.0.0.2");

        HttpResponse<String> patched = quipu.patch("/v1/webhooks/" + endpoint, key, "application/json",
                "{\"events\":[\"key.created\",\"key.revoked\"]}");
        assertThat(patched.statusCode()).as(patched.body()).isEqualTo(200);
        DeliveryTestKit.Sent test = sendTest(quipu, key, endpoint);

        assertThat(receiver.next(PATIENCE).path()).isEqualTo("/steady");
        assertThat(awaitLogged(quipu, key, endpoint, test.deliveryId(), 1).get("status").asText())
                .isEqualTo("delivered");
    }

    @Test
    void aNewUrlIsResolvedAndPinnedAgain() {
        try (WebhookReceiver moved = WebhookReceiver.start("127.0.0.2")) {
            quipu.dns.set("moving.hooks.test", "127.0.0.1");
            String endpoint = createEndpoint(quipu, key, "http://moving.hooks.test:" + receiver.port() + "/a",
                    KEY_CREATED).get("id").asText();
            quipu.dns.set("moving.hooks.test", "127.0.0.2");

            // Nothing listens on 127.0.0.1 at the new port: only the new pin reaches the receiver on 127.0.0.2.
            String newUrl = "http://moving.hooks.test:" + moved.port() + "/b";
            HttpResponse<String> patched = quipu.patch("/v1/webhooks/" + endpoint, key, "application/json",
                    "{\"url\":\"" + newUrl + "\"}");
            assertThat(patched.statusCode()).as(patched.body()).isEqualTo(200);
            assertThat(quipu.body(patched).get("url").asText()).isEqualTo(newUrl);
            DeliveryTestKit.Sent test = sendTest(quipu, key, endpoint);

            WebhookReceiver.Received received = moved.next(PATIENCE);
            assertThat(received.path()).isEqualTo("/b");
            assertThat(received.header("host")).isEqualTo("moving.hooks.test:" + moved.port());
            assertThat(awaitLogged(quipu, key, endpoint, test.deliveryId(), 1).get("status").asText())
                    .isEqualTo("delivered");
            assertThat(receiver.all()).isEmpty();
        }
    }

    @Test
    void aNewUrlIsSentToTheAddressItsHostResolvesToNow() {
        quipu.dns.set("hooks.test", "127.0.0.1");
        String endpoint = createEndpoint(quipu, key, "http://hooks.test:" + receiver.port() + "/x", KEY_CREATED)
                .get("id").asText();
        quipu.dns.set("hooks.test", "10.9.9.9");

        HttpResponse<String> patched = quipu.patch("/v1/webhooks/" + endpoint, key, "application/json",
                "{\"url\":\"http://hooks.test:" + receiver.port() + "/y\"}");
        assertThat(patched.statusCode()).as(patched.body()).isEqualTo(200);
        DeliveryTestKit.Sent test = sendTest(quipu, key, endpoint);

        JsonNode record = awaitLogged(quipu, key, endpoint, test.deliveryId(), 1);
        assertThat(record.get("status").asText()).isEqualTo("retrying");
        assertThat(record.get("error").asText()).isIn("connection_refused", "timeout");
        assertThat(receiver.anyWithin(Duration.ofMillis(300))).as("a request to the old address").isFalse();
    }

    @Test
    void withoutPrivateNetworksANewUrlResolvingToAPrivateAddressIsRefusedWithoutNamingTheAddress() {
        quipu.dns.set("intranet.hooks.test", "10.0.0.1");
        quipu.dns.set("hooks.test", "127.0.0.1");
        String url = "http://hooks.test:" + receiver.port() + "/x";
        String endpoint = createEndpoint(quipu, key, url, KEY_CREATED).get("id").asText();
        QuipuExtension.Instance strict = quipu.startInstance(Map.of("webhooks.workerEnabled", "false"));
        try {
            JsonNode problem = assertProblem(patchUrl(strict, endpoint, "http://intranet.hooks.test/hook"), 400,
                    "validation_error");
            assertThat(problem.get("detail").asText())
                    .contains("intranet.hooks.test").contains("resolves to a non-public address")
                    .doesNotContain("10.0.0.1");

            JsonNode loopback = assertProblem(patchUrl(strict, endpoint, url), 400, "validation_error");
            assertThat(loopback.get("detail").asText()).contains("hooks.test").contains("non-public")
                    .doesNotContain("127.0.0.1");

            JsonNode created = assertProblem(strict.post("/v1/webhooks", key, "application/json",
                    endpointBody("http://intranet.hooks.test/hook", KEY_CREATED)), 400, "validation_error");
            assertThat(created.get("detail").asText()).contains("non-public").doesNotContain("10.0.0.1");
        } finally {
            strict.stop();
        }
        assertThat(endpoint(quipu, key, endpoint).get("url").asText()).isEqualTo(url);
        DeliveryTestKit.Sent test = sendTest(quipu, key, endpoint);
        assertThat(receiver.next(PATIENCE).path()).isEqualTo("/x");
        assertThat(awaitLogged(quipu, key, endpoint, test.deliveryId(), 1).get("status").asText())
                .isEqualTo("delivered");
    }

    private HttpResponse<String> patchUrl(QuipuClient api, String endpoint, String url) {
        return api.patch("/v1/webhooks/" + endpoint, key, "application/json", "{\"url\":\"" + url + "\"}");
    }
}
