package pe.quipu.api.keys;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * A key as its owner sees it (contract §2), never its secret. {@code status} is what the key does now: a key in
 * grace whose grace has ended shows {@code revoked}.
 */
public record KeyView(UUID id, String name, String prefix, List<String> scopes, String status, Instant createdAt,
                      Instant lastUsedAt, Instant expiresAt) {
}
