package pe.quipu.api.watchlists;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeType;
import pe.quipu.api.domain.DomainException.InvalidInput;
import pe.quipu.api.domain.FieldError;
import pe.quipu.api.domain.RucFaults;
import pe.quipu.api.domain.StrictJson;
import pe.quipu.api.domain.Language;
import pe.quipu.api.domain.Text;
import pe.quipu.core.ruc.InvalidRucException;
import pe.quipu.core.ruc.Ruc;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Reads {@code {"rucs": [...]}}, the body of {@code PUT /v1/watchlists/{name}} and {@code POST …/rucs} (contract
 * §11), from its bytes. The body as a whole must be right (a JSON object, {@code rucs} an array within the call's
 * limit, no other member: else 400); each element is then kept, or rejected with its index and the §3 rule it breaks,
 * without failing the call. Duplicates count once.
 */
final class WatchlistBody {

    private final StrictJson json;

    WatchlistBody(ObjectMapper json) {

        this.json = new StrictJson(json);
    }

    /**
     * An element left out of the list: its place in {@code rucs}, what it was, and why it is not a RUC, in the words
     * of the request's language.
     */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    @JsonPropertyOrder({"index", "ruc", "detail"})
    public record Rejected(int index, String ruc, String detail) {
        static Rejected of(int index, String ruc, Text why, Language language) {
            return new Rejected(index, ruc, why.in(language));
        }
    }

    /** The well-formed RUCs, each once, in request order, and the elements rejected, in request order. */
    record Entries(List<String> rucs, List<Rejected> rejected) {
        String[] array() {
            return rucs.toArray(String[]::new);
        }
    }

    /**
     * @param max the most elements one call takes
     * @throws InvalidInput when the body is not such an object, or {@code rucs} is missing, not an array or longer
     */
    Entries read(byte[] body, int max, Language language) {
        JsonNode root = this.json.tree(body);
        Text shape = Text.of("watchlists.body.shape", max);
        if (root == null || root.isMissingNode()) {
            throw InvalidInput.of(Text.of("watchlists.body.empty", shape));
        }
        if (!root.isObject()) {
            throw InvalidInput.of(Text.of("watchlists.body.not_object", shape));
        }
        List<FieldError> errors = new ArrayList<>();
        root.fieldNames().forEachRemaining(name -> {
            if (!name.equals("rucs")) {
                errors.add(new FieldError(name, Text.of("watchlists.body.unknown_member")));
            }
        });
        JsonNode rucs = root.get("rucs");
        if (rucs == null || rucs.isNull()) {
            errors.add(new FieldError("rucs", Text.of("watchlists.rucs.required", shape)));
        } else if (!rucs.isArray()) {
            errors.add(new FieldError("rucs", Text.of("watchlists.rucs.not_array")));
        } else if (rucs.size() > max) {
            errors.add(new FieldError("rucs", Text.of("watchlists.rucs.too_many", max, rucs.size())));
        }
        if (!errors.isEmpty()) {
            throw new InvalidInput(errors);
        }
        Set<String> kept = new LinkedHashSet<>();
        List<Rejected> rejected = new ArrayList<>();
        for (int i = 0; i < rucs.size(); i++) {
            JsonNode element = rucs.get(i);
            if (!element.isTextual()) {
                rejected.add(Rejected.of(i, element.isNull() ? null : element.toString(),
                        Text.of("watchlists.rejected.not_a_string", jsonType(element.getNodeType())), language));
                continue;
            }
            String text = element.textValue();
            try {
                kept.add(Ruc.parse(text).value());
            } catch (InvalidRucException e) {
                rejected.add(Rejected.of(i, text, RucFaults.of(text, e), language));
            }
        }
        return new Entries(List.copyOf(kept), rejected);
    }

    /** A JSON type that is not a string, as a rejected element's detail names it. */
    private static Text jsonType(JsonNodeType type) {
        return Text.of(switch (type) {
            case ARRAY -> "watchlists.json_type.array";
            case BOOLEAN -> "watchlists.json_type.boolean";
            case NULL -> "watchlists.json_type.null";
            case NUMBER -> "watchlists.json_type.number";
            case OBJECT -> "watchlists.json_type.object";
            // Not in a tree read from JSON text.
            case BINARY, MISSING, POJO, STRING -> "watchlists.json_type.other";
        });
    }

}
