package pe.quipu.api.keys;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Ticker;
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
 * hash. Usable keys are cached; every change to a key row (creation, revocation, rotation, deletion, from any
 * instance or from SQL) evicts it through {@link KeyChangeListener}, so a revoked key fails on the next
 * request. The cache's expiry is only a safety net for a missed notification. Each success is noted in
 * {@link KeyLastUse} (memory only).
 *
 * <p>A well-formed key that is not found (or no longer usable: past its grace) is remembered as missing for
 * {@link #MISS_KEPT} of the injected clock, in a cache of its own bounded to {@link #MISSES_KEPT} hashes, so that a
 * client retrying a revoked or mistyped key, or many clients replaying one list of guesses, cost the database one
 * lookup per key and period rather than one per request. Misses never push usable keys out of their cache. A key row
 * written later (an insert notifies too) forgets the miss at once.
 */
public final class ApiKeyAuthenticator implements Authenticator<String, ApiKeyPrincipal> {

    /** How long a key not found is answered 401 without asking the database again. */
    static final Duration MISS_KEPT = Duration.ofSeconds(5);
    /** At most this many missing hashes are remembered (some 3 MB of heap); beyond it, Caffeine drops some. */
    static final int MISSES_KEPT = 20_000;

    private final Jdbi jdbi;
    private final Clock clock;
    private final KeyLastUse lastUse;
    private final Cache<String, ApiKeyPrincipal> cache = Caffeine.newBuilder()
            .maximumSize(100_000)
            .expireAfterWrite(Duration.ofMinutes(10))
            .build();
    private final Cache<String, Boolean> missing;

    public ApiKeyAuthenticator(Jdbi jdbi, Clock clock, KeyLastUse lastUse) {
        this.jdbi = jdbi;
        this.clock = clock;
        this.lastUse = lastUse;
        // On the injected clock, so that the period is tested by moving it; Caffeine reads its ticker in nanoseconds.
        Ticker ticker = () -> {
            Instant now = clock.instant();
            return now.getEpochSecond() * 1_000_000_000L + now.getNano();
        };
        this.missing = Caffeine.newBuilder()
                .maximumSize(MISSES_KEPT)
                .expireAfterWrite(MISS_KEPT)
                .ticker(ticker)
                .build();
    }

    @Override
    public Optional<ApiKeyPrincipal> authenticate(String credentials) {
        if (!ApiKeySecret.wellFormed(credentials)) {
            return Optional.empty();
        }
        byte[] hash = ApiKeySecret.hashOf(credentials);
        String cacheKey = HexFormat.of().formatHex(hash);
        if (missing.getIfPresent(cacheKey) != null) {
            return Optional.empty();
        }
        // Loaded inside the cache's own computation, never read-then-put: an eviction arriving while the row is read
        // waits for the load and then removes its result, so a key revoked meanwhile cannot stay cached. A key not
        // found is not cached there but noted as missing, within the same computation and so under the same rule:
        // the eviction of a key written meanwhile waits for it, then forgets the miss (evict). Requests for
        // one unknown key that arrive together wait for the first one's lookup and find its miss.
        ApiKeyPrincipal principal = cache.get(cacheKey, k -> {
            if (missing.getIfPresent(k) != null) {
                return null;
            }
            Optional<ApiKeyPrincipal> found = load(hash).filter(p -> p.usableAt(clock.instant()));
            if (found.isEmpty()) {
                missing.put(k, Boolean.TRUE);
            }
            return found.orElse(null);
        });
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

    /**
     * Forgets the key with this hash (hex), as told by a notification: the usable key, or that it was missing. In
     * that order: the first waits for a lookup of this key under way, whose miss the second then removes.
     */
    void evict(String hashHex) {
        cache.invalidate(hashHex);
        missing.invalidate(hashHex);
    }

    /**
     * Forgets that the key with this hash (hex) was missing, as told by the notification of its insert. A lookup of
     * it under way is waited for (a compute on its entry waits for the lookup's own), so that a miss it is about to
     * note is forgotten too; a key already cached stays: a row just inserted cannot have made it stale.
     */
    void forgetMiss(String hashHex) {
        cache.asMap().computeIfPresent(hashHex, (k, principal) -> principal);
        missing.invalidate(hashHex);
    }

    /**
     * Forgets the key with this hash at once, on the instance that just changed it: its notification comes back
     * asynchronously, and the caller's next request must not find the old state.
     */
    public void forget(byte[] keyHash) {
        evict(HexFormat.of().formatHex(keyHash));
    }

    /** Forgets every key and every miss, when notifications may have been missed. */
    void evictAll() {
        cache.invalidateAll();
        missing.invalidateAll();
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
