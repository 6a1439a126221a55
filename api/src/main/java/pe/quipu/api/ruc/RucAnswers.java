package pe.quipu.api.ruc;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import pe.quipu.api.platform.ExactCache;
import pe.quipu.core.ruc.Ruc;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

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
    private final ExactCache<String, Boolean> unknown;
    private final Function<byte[], String> etag;

    /**
     * @param etag the strong entity tag of a body as sent ({@code pe.quipu.api.http.ETags::strong}): computed once
     *             per kept answer, by the rule the HTTP edge compares tags with
     */
    public RucAnswers(RucRegistry registry, ObjectMapper json, ExactCache<String, Answer> kept,
                      ExactCache<String, Boolean> unknown, Function<byte[], String> etag) {
        this.registry = registry;
        this.json = json;
        this.kept = kept;
        this.unknown = unknown;
        this.etag = etag;
    }

    /** A cache for these answers: at most {@code maxBytes} of them, about, while {@code listening} holds. */
    public static ExactCache<String, Answer> cache(BooleanSupplier listening, long maxBytes) {
        return new ExactCache<>(listening, maxBytes, a -> a.body().length + a.etag().length());
    }

    /**
     * The budget of the RUCs known not to be in the registry, out of the answers' {@code answerBytes}: an eighth, on
     * top of it. Each weighs only the cache's overhead per entry, so the default 16 MiB holds some 10,000 of them.
     */
    public static long unknownBytes(long answerBytes) {
        return answerBytes / 8;
    }

    /** A cache of the RUCs the registry does not hold: at most {@code maxBytes} of them, about. */
    public static ExactCache<String, Boolean> unknownCache(BooleanSupplier listening, long maxBytes) {
        return new ExactCache<>(listening, maxBytes, absent -> 0);
    }

    public Optional<Answer> find(Ruc ruc) {
        ExactCache<String, Answer>.Read read = kept.read();
        Answer answer = read.kept(ruc.value());
        if (answer != null) {
            return Optional.of(answer);
        }
        ExactCache<String, Boolean>.Read absent = unknown.read();
        if (absent.kept(ruc.value()) != null) {
            return Optional.empty();
        }
        Optional<Answer> found = registry.find(ruc).map(this::answer);
        if (found.isPresent()) {
            read.keep(ruc.value(), found.get());
        } else {
            absent.keep(ruc.value(), Boolean.TRUE);
        }
        return found;
    }

    /** The answers of these RUCs that the registry holds, keyed by RUC; what is not kept is read in one query. */
    public Map<String, Answer> findAll(Collection<Ruc> rucs) {
        ExactCache<String, Answer>.Read read = kept.read();
        ExactCache<String, Boolean>.Read absent = unknown.read();
        Map<String, Answer> found = new HashMap<>();
        List<Ruc> missing = new ArrayList<>();
        for (Ruc ruc : rucs) {
            Answer answer = read.kept(ruc.value());
            if (answer != null) {
                found.put(ruc.value(), answer);
            } else if (absent.kept(ruc.value()) == null) {
                missing.add(ruc);
            }
        }
        if (!missing.isEmpty()) {
            registry.findAll(missing).forEach((ruc, record) -> {
                Answer a = answer(record);
                found.put(ruc, a);
                read.keep(ruc, a);
            });
            for (Ruc ruc : missing) {
                if (!found.containsKey(ruc.value())) {
                    absent.keep(ruc.value(), Boolean.TRUE);
                }
            }
        }
        return found;
    }

    private Answer answer(RucRecord record) {
        try {
            return answer(record.ruc(), json.writeValueAsBytes(record));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a RUC record always serialises", e);
        }
    }

    /** An answer of these bytes: its tag is their hash, so it changes exactly when what the client receives does. */
    Answer answer(String ruc, byte[] body) {
        return new Answer(ruc, body, etag.apply(body));
    }
}
