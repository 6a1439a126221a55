package pe.quipu.api.ruc;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import pe.quipu.api.platform.ExactCache;
import pe.quipu.core.ruc.Ruc;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * Answers that include SUNAT's lists or premises ({@code ?include=}, contract §10): the registry's answer, its very
 * bytes, with {@code "padrones"} and then {@code "anexos"} added before its closing brace, and the ETag of the whole.
 * So the record's fields are the lookup's own, and the tag changes when a list or a premise of the RUC does. Kept in
 * memory like the registry's answers, and exact the same way: this cache drops everything on a change to the
 * registry and on a change to the lists or premises (changesets 013 and 015), on every instance; or, when the change
 * names its load's run (changeset 031), the answers of the RUCs that run changed ({@link AnswerEviction}).
 */
public final class IncludedAnswers {

    private static final byte[] PADRONES = ",\"padrones\":".getBytes(StandardCharsets.UTF_8);
    private static final byte[] ANEXOS = ",\"anexos\":".getBytes(StandardCharsets.UTF_8);
    /** Every include that asks for something: each keeps its answers under a key of its own. */
    private static final List<Include> INCLUDES = List.of(new Include(true, false), new Include(false, true),
            new Include(true, true));

    private final RucAnswers registry;
    private final RucLists lists;
    private final ObjectMapper json;
    private final ExactCache<String, RucAnswers.Answer> kept;

    public IncludedAnswers(RucAnswers registry, RucLists lists, ObjectMapper json,
                           ExactCache<String, RucAnswers.Answer> kept) {
        this.registry = registry;
        this.lists = lists;
        this.json = json;
        this.kept = kept;
    }

    /** A cache for these answers: at most {@code maxBytes} of them, about, while {@code listening} holds. */
    public static ExactCache<String, RucAnswers.Answer> cache(BooleanSupplier listening, long maxBytes) {
        return RucAnswers.cache(listening, maxBytes);
    }

    /** The answer of {@code ruc} with what {@code include} asks; the registry's own answer when it asks nothing. */
    public Optional<RucAnswers.Answer> find(Ruc ruc, Include include) {
        if (include.nothing()) {
            return registry.find(ruc);
        }
        return Optional.ofNullable(findAll(List.of(ruc), include).get(ruc.value()));
    }

    /** The answers of these RUCs that the registry holds, keyed by RUC, each with what {@code include} asks. */
    public Map<String, RucAnswers.Answer> findAll(Collection<Ruc> rucs, Include include) {
        if (include.nothing()) {
            return registry.findAll(rucs);
        }
        // Begun before anything is read, so that a change committed meanwhile keeps these answers out of memory.
        ExactCache<String, RucAnswers.Answer>.Read read = kept.read();
        Map<String, RucAnswers.Answer> found = new HashMap<>();
        List<Ruc> missing = new ArrayList<>();
        for (Ruc ruc : rucs) {
            RucAnswers.Answer answer = read.kept(key(ruc.value(), include));
            if (answer != null) {
                found.put(ruc.value(), answer);
            } else {
                missing.add(ruc);
            }
        }
        if (missing.isEmpty()) {
            return found;
        }
        Map<String, RucAnswers.Answer> records = registry.findAll(missing);
        if (records.isEmpty()) {
            return found;
        }
        Map<String, List<RucLists.Padron>> padrones = include.padrones() ? lists.padrones(records.keySet()) : Map.of();
        Map<String, List<RucLists.Anexo>> anexos = include.anexos() ? lists.anexos(records.keySet()) : Map.of();
        records.forEach((ruc, record) -> {
            RucAnswers.Answer answer = extend(record, include, padrones.getOrDefault(ruc, List.of()),
                    anexos.getOrDefault(ruc, List.of()));
            found.put(ruc, answer);
            read.keep(key(ruc, include), answer);
        });
        return found;
    }

    private RucAnswers.Answer extend(RucAnswers.Answer record, Include include, List<RucLists.Padron> padrones,
                                     List<RucLists.Anexo> anexos) {
        try {
            byte[] base = record.body();
            ByteArrayOutputStream body = new ByteArrayOutputStream(base.length + 256);
            // The registry's answer is one JSON object: everything before its closing brace stays as it is.
            body.write(base, 0, base.length - 1);
            if (include.padrones()) {
                body.writeBytes(PADRONES);
                body.writeBytes(json.writeValueAsBytes(padrones));
            }
            if (include.anexos()) {
                body.writeBytes(ANEXOS);
                body.writeBytes(json.writeValueAsBytes(anexos));
            }
            body.write('}');
            byte[] bytes = body.toByteArray();
            return registry.answer(record.ruc(), bytes);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("lists and premises always serialise", e);
        }
    }

    /** The keys under which answers of these RUCs may be kept, whatever they included. */
    static List<String> keysOf(Collection<String> rucs) {
        List<String> keys = new ArrayList<>(rucs.size() * INCLUDES.size());
        for (String ruc : rucs) {
            for (Include include : INCLUDES) {
                keys.add(key(ruc, include));
            }
        }
        return keys;
    }

    private static String key(String ruc, Include include) {
        return ruc + include.key();
    }
}
