package pe.quipu.api.webhooks;

import com.fasterxml.jackson.annotation.JsonInclude;

import java.time.Instant;
import java.util.List;

/**
 * A delivery record (contract §6). {@code attempts} counts the attempts of the current series (a manual retry starts
 * a new one); the detail answer lists every attempt in {@code attemptLog}, oldest first, absent from lists.
 */
public record DeliveryView(String id, String eventId, String eventType, String status, int attempts,
                           Integer responseCode, Integer latencyMs, Instant lastAttemptAt, Instant nextAttemptAt,
                           Instant createdAt, String error,
                           @JsonInclude(JsonInclude.Include.NON_NULL) List<AttemptView> attemptLog) {

    /** One attempt: {@code id} is the {@code x-quipu-delivery} it was sent with; {@code responseBody} its first 2 KiB. */
    public record AttemptView(String id, Instant attemptedAt, Integer responseCode, int latencyMs, String error,
                              String responseBody) {
    }

    DeliveryView withAttempts(List<AttemptView> attempts) {
        return new DeliveryView(id, eventId, eventType, status, this.attempts, responseCode, latencyMs, lastAttemptAt,
                nextAttemptAt, createdAt, error, attempts);
    }
}
