package pe.quipu.api.auth;

import java.time.Instant;
import java.util.Set;
import java.util.UUID;

/** The caller of a data endpoint: an API key and its account. Holds no secret. */
public record ApiKeyPrincipal(UUID keyId, UUID accountId, String prefix, Set<Scope> scopes, Instant expiresAt)
        implements QuipuPrincipal {

    @Override
    public String getName() {
        return prefix;
    }

    public boolean usableAt(Instant now) {
        return expiresAt == null || now.isBefore(expiresAt);
    }
}
