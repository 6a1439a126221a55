package pe.quipu.api.platform;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.stats.CacheStats;

import java.util.Collection;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.ToIntFunction;

/**
 * Values read from the database, kept in memory and exact, never merely fresh enough: whatever writes their tables
 * notifies every instance at commit ({@link NotificationListener}), and each notification starts a new generation.
 * A notification drops everything ({@link #changed()}), or only the values of the keys it names
 * ({@link #changed(Collection)}). Either way a value read while a change was being committed belongs to the
 * generation before it and is not kept: a read keeps what it found only if no notification came between its start and
 * its keep, so an answer read from the old rows never outlives the eviction that was meant for it. While changes
 * cannot be heard (the LISTEN connection is down), or while an instance is finding out which keys a change touched
 * ({@link #pause()}), nothing is kept or served.
 *
 * <p>Use: {@link #read()} before reading the database, {@link Read#keep} with what was read.
 */
public final class ExactCache<K, V> {

    /** Per entry beyond the value's own weight: the key, the objects holding it and Caffeine's node. */
    static final int OVERHEAD_BYTES = 200;

    private record Held<V>(long generation, V value) {
    }

    private final BooleanSupplier listening;
    private final Cache<K, Held<V>> held;
    private final AtomicLong generation = new AtomicLong();
    /** The generation that dropped everything last: nothing kept before it is served, whatever a race left behind. */
    private volatile long droppedAt;
    private final AtomicInteger pauses = new AtomicInteger();

    /**
     * @param listening whether changes are being heard now
     * @param maxBytes  about how much memory the kept values may take
     * @param bytes     about how many bytes one value takes
     */
    public ExactCache(BooleanSupplier listening, long maxBytes, ToIntFunction<V> bytes) {
        this.listening = listening;
        this.held = Caffeine.newBuilder()
                .maximumWeight(maxBytes)
                .weigher((K key, Held<V> h) -> OVERHEAD_BYTES + bytes.applyAsInt(h.value()))
                .recordStats()
                .build();
    }

    /** The tables changed, or changes may have gone unheard: nothing read before now is served again. */
    public void changed() {
        droppedAt = generation.incrementAndGet();
        held.invalidateAll();
    }

    /** The values of these keys changed (and no other): theirs are dropped, and reads in flight keep nothing. */
    public void changed(Collection<? extends K> keys) {
        generation.incrementAndGet();
        held.invalidateAll(keys);
    }

    /**
     * A change was committed, and which keys it touched is being read: until the pause is closed nothing is served
     * or kept, and no read begun before it keeps anything. Close it after {@link #changed} said what changed.
     */
    public Pause pause() {
        pauses.incrementAndGet();
        generation.incrementAndGet();
        return pauses::decrementAndGet;
    }

    /** Ends a {@link #pause()}. */
    @FunctionalInterface
    public interface Pause extends AutoCloseable {
        @Override
        void close();
    }

    /** Starts a read: what is kept for this generation, and where to keep what the database says. */
    public Read read() {
        return new Read(generation.get(), pauses.get() == 0 && listening.getAsBoolean());
    }

    /** Hits, misses and evictions of {@link Read#kept} since the start. */
    public CacheStats stats() {
        return held.stats();
    }

    /** About how many bytes the kept values take now, by the weigher's estimate. */
    public long weight() {
        held.cleanUp();
        return held.policy().eviction().map(e -> e.weightedSize().orElse(0)).orElse(0L);
    }

    /** How many values are kept now (about: Caffeine's count). */
    public long size() {
        return held.estimatedSize();
    }

    /** One read, begun before the database is asked. */
    public final class Read {
        private final long generation;
        private final boolean exact;

        private Read(long generation, boolean exact) {
            this.generation = generation;
            this.exact = exact;
        }

        /** The value kept for {@code key}; null when there is none (or none may be). */
        public V kept(K key) {
            if (!exact) {
                return null;
            }
            Held<V> h = held.getIfPresent(key);
            return h != null && h.generation() >= droppedAt ? h.value() : null;
        }

        /**
         * Keeps what the database said, if changes were being heard when this read began and none has been heard
         * since. Checked and kept in one step of the key's entry, which an eviction of the key also takes: either
         * the eviction comes after and drops it, or the check sees the eviction's generation and keeps nothing.
         */
        public void keep(K key, V value) {
            if (exact) {
                held.asMap().compute(key, (k, old) ->
                        ExactCache.this.generation.get() == generation ? new Held<>(generation, value) : old);
            }
        }
    }
}
