package pe.quipu.api.webhooks;

import com.fasterxml.jackson.annotation.JsonInclude;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * A webhook endpoint as the API answers it (the spec's "Webhook endpoint", with contract §6's additions).
 * {@code secret} appears only in the answers to create and rotate; {@code disabledReason} says why an endpoint was
 * set inactive by Quipu (auto-disable, the plan's cap), null otherwise; {@code previousSecretExpiresAt} is when the
 * secret replaced by the last rotation stops signing (null outside a rotation's grace).
 */
public record EndpointView(UUID id, String url, List<String> events, boolean active, String disabledReason,
                           Instant createdAt, Instant updatedAt, Instant previousSecretExpiresAt,
                           @JsonInclude(JsonInclude.Include.NON_NULL) String secret) {

    EndpointView withSecret(String secret) {
        return new EndpointView(id, url, events, active, disabledReason, createdAt, updatedAt,
                previousSecretExpiresAt, secret);
    }
}
