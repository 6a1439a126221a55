package pe.quipu.api.platform;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.ToIntFunction;

/**
 * Values read from the database, kept in memory and exact, never merely fresh enough: whatever writes their tables
 * notifies every instance at commit ({@link NotificationListener}), and each notification starts a new generation.
 * A value is served only if it was read in the current generation; one read while a change was being committed
 * belongs to the generation before it, so it is never served. While changes cannot be heard (the LISTEN connection
 * is down) nothing is kept or served.
 *
 * <p>Use: {@link #read()} before reading the database, {@link Read#keep} with what was read.
 */
public final class ExactCache<K, V> {

    /** Per entry beyond the value's own weight: the key, the objects holding it and Caffeine's node. */
    private static final int OVERHEAD_BYTES = 200;

    private record Held<V>(long generation, V value) {
    }

    private final BooleanSupplier listening;
    private final Cache<K, Held<V>> held;
    private final AtomicLong generation = new AtomicLong();

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
                .build();
    }

    /** The tables changed, or changes may have gone unheard: nothing read before now is served again. */
    public void changed() {
        generation.incrementAndGet();
        held.invalidateAll();
    }

    /** Starts a read: what is kept for this generation, and where to keep what the database says. */
    public Read read() {
        return new Read(generation.get(), listening.getAsBoolean());
    }

    /** One read, begun before the database is asked. */
    public final class Read {
        private final long generation;
        private final boolean exact;

        private Read(long generation, boolean exact) {
            this.generation = generation;
            this.exact = exact;
        }

        /** The value kept for {@code key} in this read's generation; null when there is none (or none may be). */
        public V kept(K key) {
            if (!exact) {
                return null;
            }
            Held<V> h = held.getIfPresent(key);
            return h != null && h.generation() == generation ? h.value() : null;
        }

        /** Keeps what the database said, if changes were being heard when this read began. */
        public void keep(K key, V value) {
            if (exact) {
                held.put(key, new Held<>(generation, value));
            }
        }
    }
}
