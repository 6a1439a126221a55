package pe.quipu.api.ruc;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import pe.quipu.core.ruc.Ruc;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

/**
 * The answers of recently looked-up RUCs, serialised once with their ETag, in front of {@link RucRegistry}.
 *
 * <p>Exact, never merely fresh enough: every write to the registry notifies every instance (changeset 013), and a
 * notification starts a new generation. An answer is served only if it was read in the current generation, and one
 * read while a change was being committed belongs to the generation before it, so it is never served. While the
 * notification connection is down a change could go unseen, so then every lookup reads the database.
 *
 * <p>Only found records are kept: a RUC that is not in the registry is asked of the database each time.
 */
public final class RucAnswers {

    /** One record as it goes on the wire, and the generation it was read in. */
    public record Answer(String ruc, byte[] body, String etag) {
    }

    private record Held(long generation, Answer answer) {
    }

    /** Per entry beyond its bytes: the key, the tag, the objects holding them and Caffeine's node. */
    private static final int OVERHEAD_BYTES = 200;

    private final RucRegistry registry;
    private final ObjectMapper json;
    private final BooleanSupplier exact;
    private final Cache<String, Held> held;
    private final AtomicLong generation = new AtomicLong();

    /**
     * @param exact    whether changes to the registry are being heard now (the notification connection is up)
     * @param maxBytes how much memory the kept answers may take, about
     */
    public RucAnswers(RucRegistry registry, ObjectMapper json, BooleanSupplier exact, long maxBytes) {
        this.registry = registry;
        this.json = json;
        this.exact = exact;
        this.held = Caffeine.newBuilder()
                .maximumWeight(maxBytes)
                .weigher((String ruc, Held h) -> OVERHEAD_BYTES + h.answer().body().length)
                .build();
    }

    /** The registry changed (or changes may have gone unheard): no answer read before now is served again. */
    public void registryChanged() {
        generation.incrementAndGet();
        held.invalidateAll();
    }

    public Optional<Answer> find(Ruc ruc) {
        long current = generation.get();
        boolean cacheable = exact.getAsBoolean();
        if (cacheable) {
            Held h = held.getIfPresent(ruc.value());
            if (h != null && h.generation() == current) {
                return Optional.of(h.answer());
            }
        }
        Optional<Answer> read = registry.find(ruc).map(this::answer);
        if (cacheable) {
            read.ifPresent(a -> held.put(a.ruc(), new Held(current, a)));
        }
        return read;
    }

    /** The answers of these RUCs that the registry holds, keyed by RUC; what is not kept is read in one query. */
    public Map<String, Answer> findAll(Collection<Ruc> rucs) {
        long current = generation.get();
        boolean cacheable = exact.getAsBoolean();
        Map<String, Answer> found = new HashMap<>();
        List<Ruc> missing = new ArrayList<>();
        for (Ruc ruc : rucs) {
            Held h = cacheable ? held.getIfPresent(ruc.value()) : null;
            if (h != null && h.generation() == current) {
                found.put(ruc.value(), h.answer());
            } else {
                missing.add(ruc);
            }
        }
        if (!missing.isEmpty()) {
            registry.findAll(missing).forEach((ruc, record) -> {
                Answer a = answer(record);
                found.put(ruc, a);
                if (cacheable) {
                    held.put(ruc, new Held(current, a));
                }
            });
        }
        return found;
    }

    private Answer answer(RucRecord record) {
        try {
            byte[] body = json.writeValueAsBytes(record);
            // The tag is the hash of these very bytes, so it changes exactly when what the client receives does.
            return new Answer(record.ruc(), body, ETags.strong(body));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a RUC record always serialises", e);
        }
    }
}
