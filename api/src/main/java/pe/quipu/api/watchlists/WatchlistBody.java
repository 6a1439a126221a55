package pe.quipu.api.watchlists;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import pe.quipu.api.domain.DomainException.InvalidInput;
import pe.quipu.api.domain.FieldError;
import pe.quipu.api.domain.StrictJson;
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

    /** An element left out of the list: its place in {@code rucs}, what it was, and why it is not a RUC. */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    @JsonPropertyOrder({"index", "ruc", "detail"})
    public record Rejected(int index, String ruc, String detail) {
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
    Entries read(byte[] body, int max) {
        JsonNode root = this.json.tree(body);
        String shape = "send {\"rucs\": [\"20100227461\", …]} with at most " + max + " RUCs";
        if (root == null || root.isMissingNode()) {
            throw InvalidInput.of("The request body is empty; " + shape);
        }
        if (!root.isObject()) {
            throw InvalidInput.of("The request body must be a JSON object; " + shape);
        }
        List<FieldError> errors = new ArrayList<>();
        root.fieldNames().forEachRemaining(name -> {
            if (!name.equals("rucs")) {
                errors.add(new FieldError(name, "unknown member; the body takes \"rucs\""));
            }
        });
        JsonNode rucs = root.get("rucs");
        if (rucs == null || rucs.isNull()) {
            errors.add(new FieldError("rucs", "is required; " + shape));
        } else if (!rucs.isArray()) {
            errors.add(new FieldError("rucs", "must be an array of RUC strings"));
        } else if (rucs.size() > max) {
            errors.add(new FieldError("rucs", "must hold at most " + max + " RUCs in one call, got " + rucs.size()));
        }
        if (!errors.isEmpty()) {
            throw new InvalidInput(errors);
        }
        Set<String> kept = new LinkedHashSet<>();
        List<Rejected> rejected = new ArrayList<>();
        for (int i = 0; i < rucs.size(); i++) {
            JsonNode element = rucs.get(i);
            if (!element.isTextual()) {
                rejected.add(new Rejected(i, element.isNull() ? null : element.toString(),
                        "a RUC is a string of 11 digits, not " + element.getNodeType().name().toLowerCase()));
                continue;
            }
            String text = element.textValue();
            try {
                kept.add(Ruc.parse(text).value());
            } catch (InvalidRucException e) {
                rejected.add(new Rejected(i, text, e.getMessage()));
            }
        }
        return new Entries(List.copyOf(kept), rejected);
    }

}
