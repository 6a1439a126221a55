package pe.quipu.api.keys;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.dropwizard.auth.Authenticator;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import pe.quipu.api.auth.ApiKeyPrincipal;
import pe.quipu.api.auth.Scope;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * Resolves {@code Authorization: Bearer qk_live_…} to a key, through an in-memory cache keyed by the key's
 * hash. Only usable keys are cached; every change to a key row (revocation, rotation, deletion, from any
 * instance or from SQL) evicts it through {@link KeyChangeListener}, so a revoked key fails on the next
 * request. The cache's expiry is only a safety net for a missed notification. Each success is noted in
 * {@link KeyLastUse} (memory only).
 */
public final class ApiKeyAuthenticator implements Authenticator<String, ApiKeyPrincipal> {

    private final Jdbi jdbi;
    private final Clock clock;
    private final KeyLastUse lastUse;
    private final Cache<String, ApiKeyPrincipal> cache = Caffeine.newBuilder()
            .maximumSize(100_000)
            .expireAfterWrite(Duration.ofMinutes(10))
            .build();

    public ApiKeyAuthenticator(Jdbi jdbi, Clock clock, KeyLastUse lastUse) {
        this.jdbi = jdbi;
        this.clock = clock;
        this.lastUse = lastUse;
    }

    @Override
    public Optional<ApiKeyPrincipal> authenticate(String credentials) {
        if (!ApiKeySecret.wellFormed(credentials)) {
            return Optional.empty();
        }
        byte[] hash = ApiKeySecret.hashOf(credentials);
        String cacheKey = HexFormat.of().formatHex(hash);
        // Loaded inside the cache's own computation, never read-then-put: an eviction arriving while the row is read
        // waits for the load and then removes its result, so a key revoked meanwhile cannot stay cached. A key not
        // found (or not usable) is not cached.
        ApiKeyPrincipal principal = cache.get(cacheKey, k -> load(hash).orElse(null));
        if (principal == null) {
            return Optional.empty();
        }
        if (!principal.usableAt(clock.instant())) {
            cache.invalidate(cacheKey);
            return Optional.empty();
        }
        lastUse.record(principal.keyId());
        return Optional.of(principal);
    }

    /**
     * Makes {@code secret} a key of {@code principal} in this process's memory only, until the returned action
     * runs: for the start-up warm-up ({@code pe.quipu.api.training.WarmUp}), before any connector is open.
     */
    public Runnable admitInMemory(String secret, ApiKeyPrincipal principal) {
        String cacheKey = HexFormat.of().formatHex(ApiKeySecret.hashOf(secret));
        cache.put(cacheKey, principal);
        return () -> cache.invalidate(cacheKey);
    }

    /** Forgets the key with this hash (hex), as told by a notification. */
    void evict(String hashHex) {
        cache.invalidate(hashHex);
    }

    /**
     * Forgets the key with this hash at once, on the instance that just changed it: its notification comes back
     * asynchronously, and the caller's next request must not find the old state.
     */
    public void forget(byte[] keyHash) {
        cache.invalidate(HexFormat.of().formatHex(keyHash));
    }

    /** Forgets every key, when notifications may have been missed. */
    void evictAll() {
        cache.invalidateAll();
    }

    private Optional<ApiKeyPrincipal> load(byte[] hash) {
        return jdbi.withHandle(h -> h.attach(UsableKeyRows.class).find(hash)).map(row -> new ApiKeyPrincipal(
                row.id(), row.accountId(), row.prefix(), row.scopes().stream().map(Scope::fromWireName)
                        .flatMap(Optional::stream).collect(Collectors.toUnmodifiableSet()),
                row.expiresAt()));
    }

    interface UsableKeyRows {
        record Row(UUID id, UUID accountId, String prefix, List<String> scopes, Instant expiresAt) {
        }

        @SqlQuery("""
                select id, account_id, prefix, scopes, expires_at
                  from api_keys
                 where key_hash = :hash and status in ('active', 'grace')""")
        @RegisterConstructorMapper(Row.class)
        Optional<Row> find(byte[] hash);
    }
}
