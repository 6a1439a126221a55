package pe.quipu.api.keys;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

/** A key just created or rotated: the key object plus {@code key}, its secret, shown this once. */
public record NewKey(UUID id, String name, String prefix, List<String> scopes, String status, Instant createdAt,
                     Instant lastUsedAt, Instant expiresAt, String key) {
}
