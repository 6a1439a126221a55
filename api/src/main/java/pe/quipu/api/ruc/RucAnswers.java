package pe.quipu.api.ruc;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import pe.quipu.api.db.ExactCache;
import pe.quipu.core.ruc.Ruc;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * The answers of recently looked-up RUCs, serialised once with their ETag, in front of {@link RucRegistry}; exact
 * ({@link ExactCache}: every write to the registry notifies every instance, changeset 013). Only found records are
 * kept: a RUC that is not in the registry is asked of the database each time.
 */
public final class RucAnswers {

    /** One record as it goes on the wire. */
    public record Answer(String ruc, byte[] body, String etag) {
    }

    private final RucRegistry registry;
    private final ObjectMapper json;
    private final ExactCache<String, Answer> kept;

    public RucAnswers(RucRegistry registry, ObjectMapper json, ExactCache<String, Answer> kept) {
        this.registry = registry;
        this.json = json;
        this.kept = kept;
    }

    /** A cache for these answers: at most {@code maxBytes} of them, about, while {@code listening} holds. */
    public static ExactCache<String, Answer> cache(BooleanSupplier listening, long maxBytes) {
        return new ExactCache<>(listening, maxBytes, a -> a.body().length + a.etag().length());
    }

    public Optional<Answer> find(Ruc ruc) {
        ExactCache<String, Answer>.Read read = kept.read();
        Answer answer = read.kept(ruc.value());
        if (answer != null) {
            return Optional.of(answer);
        }
        Optional<Answer> found = registry.find(ruc).map(this::answer);
        found.ifPresent(a -> read.keep(a.ruc(), a));
        return found;
    }

    /** The answers of these RUCs that the registry holds, keyed by RUC; what is not kept is read in one query. */
    public Map<String, Answer> findAll(Collection<Ruc> rucs) {
        ExactCache<String, Answer>.Read read = kept.read();
        Map<String, Answer> found = new HashMap<>();
        List<Ruc> missing = new ArrayList<>();
        for (Ruc ruc : rucs) {
            Answer answer = read.kept(ruc.value());
            if (answer != null) {
                found.put(ruc.value(), answer);
            } else {
                missing.add(ruc);
            }
        }
        if (!missing.isEmpty()) {
            registry.findAll(missing).forEach((ruc, record) -> {
                Answer a = answer(record);
                found.put(ruc, a);
                read.keep(ruc, a);
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
