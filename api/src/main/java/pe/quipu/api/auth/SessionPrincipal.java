package pe.quipu.api.auth;

import java.time.Instant;
import java.util.UUID;

/** The caller of an account endpoint: a verified access JWT of a session. Holds no token. */
public record SessionPrincipal(UUID accountId, UUID sessionId, String jti, Instant expiresAt)
        implements QuipuPrincipal {

    @Override
    public String getName() {
        return accountId.toString();
    }
}
