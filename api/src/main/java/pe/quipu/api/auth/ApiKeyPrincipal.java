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

    /**
     * The account of the start-up warm-up's key, which exists in memory only (the nil UUID: no account has it). Its
     * requests are not metered.
     */
    public static final UUID WARM_UP_ACCOUNT = new UUID(0, 0);

    /** Whether this is the start-up warm-up's key, see {@link #WARM_UP_ACCOUNT}. */
    public boolean warmUp() {
        return WARM_UP_ACCOUNT.equals(accountId);
    }

    public boolean usableAt(Instant now) {
        return expiresAt == null || now.isBefore(expiresAt);
    }
}
