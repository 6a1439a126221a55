package pe.quipu.api.accounts;

import java.time.Instant;
import java.util.UUID;

/** An account as its holder sees it: {@code POST /v1/auth/signup}'s answer and {@code GET /v1/me}'s profile. */
public record Account(UUID id, String email, String nombre, int usageAlertPercent, Instant createdAt) {
}
