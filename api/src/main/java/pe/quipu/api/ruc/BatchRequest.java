package pe.quipu.api.ruc;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import pe.quipu.api.domain.DomainException.InvalidInput;
import pe.quipu.api.domain.FieldError;
import pe.quipu.api.domain.StrictJson;
import pe.quipu.core.ruc.InvalidRucException;
import pe.quipu.core.ruc.Ruc;

import java.util.ArrayList;
import java.util.List;

/**
 * Reads the body of {@code POST /v1/ruc/batch}, {@code {"rucs": ["…", …], "include": ["padrones", …]}} ({@code include}
 * optional, contract §10), from its bytes. Done by hand
 * rather than by Jackson data binding so that every rejection says precisely what is wrong and where.
 */
public final class BatchRequest {

    /** The schema's limit (interface spec, Limits); plan caps are lower or equal. */
    public static final int MAX_RUCS = 100;

    private static final String SHAPE = "send {\"rucs\": [\"20100227461\", …]} with 1 to " + MAX_RUCS + " RUCs";

    private final StrictJson json;

    public BatchRequest(ObjectMapper json) {
        this.json = new StrictJson(json);
    }

    /** A batch as asked: its RUCs in request order, duplicates kept, and what every answer includes. */
    public record Batch(List<Ruc> rucs, Include include) {
    }

    /** The RUCs in request order, duplicates kept; or {@link InvalidInput} listing every fault found. */
    public List<Ruc> read(byte[] body) {
        return readBatch(body).rucs();
    }

    /** The batch; or {@link InvalidInput} listing every fault found. */
    public Batch readBatch(byte[] body) {
        JsonNode root = this.json.tree(body);
        if (root == null || root.isMissingNode()) {
            throw InvalidInput.of("The request body is empty; " + SHAPE);
        }
        if (!root.isObject()) {
            throw InvalidInput.of("The request body must be a JSON object, not " + kind(root) + "; " + SHAPE);
        }
        List<FieldError> errors = new ArrayList<>();
        root.fieldNames().forEachRemaining(name -> {
            if (!name.equals("rucs") && !name.equals("include")) {
                errors.add(new FieldError(name, "unknown member; the body takes \"rucs\" and \"include\""));
            }
        });
        List<Ruc> rucs = rucs(root.get("rucs"), errors);
        Include include = include(root.get("include"), errors);
        if (!errors.isEmpty()) {
            throw new InvalidInput(errors);
        }
        return new Batch(rucs, include);
    }

    private static Include include(JsonNode node, List<FieldError> errors) {
        if (node == null) {
            return Include.NOTHING;
        }
        if (!node.isArray()) {
            errors.add(new FieldError("include", "must be an array of names (" + Include.NAMES + "), not "
                    + kind(node)));
            return Include.NOTHING;
        }
        List<String> names = new ArrayList<>();
        for (int i = 0; i < node.size(); i++) {
            JsonNode element = node.get(i);
            String field = "include[" + i + "]";
            if (!element.isTextual()) {
                errors.add(new FieldError(field, "must be one of " + Include.NAMES + ", not " + kind(element)));
                continue;
            }
            String name = element.textValue();
            if (name.equals("padrones") || name.equals("anexos")) {
                names.add(name);
            } else {
                errors.add(new FieldError(field, "unknown name; include takes " + Include.NAMES
                        + ", one per element"));
            }
        }
        return Include.of(names, "include");
    }


    private static List<Ruc> rucs(JsonNode node, List<FieldError> errors) {
        if (node == null) {
            errors.add(new FieldError("rucs", "is required; " + SHAPE));
            return List.of();
        }
        if (!node.isArray()) {
            errors.add(new FieldError("rucs", "must be an array of RUC strings, not " + kind(node)));
            return List.of();
        }
        if (node.isEmpty()) {
            errors.add(new FieldError("rucs", "must hold at least 1 RUC"));
            return List.of();
        }
        if (node.size() > MAX_RUCS) {
            errors.add(new FieldError("rucs",
                    "must hold at most " + MAX_RUCS + " RUCs, got " + node.size()));
            return List.of();
        }
        List<Ruc> rucs = new ArrayList<>(node.size());
        for (int i = 0; i < node.size(); i++) {
            JsonNode element = node.get(i);
            String field = "rucs[" + i + "]";
            if (!element.isTextual()) {
                errors.add(new FieldError(field, "must be a string of 11 digits, not " + kind(element)));
                continue;
            }
            try {
                rucs.add(Ruc.parse(element.textValue()));
            } catch (InvalidRucException e) {
                errors.add(new FieldError(field, e.getMessage()));
            }
        }
        return rucs;
    }

    private static String kind(JsonNode node) {
        return switch (node.getNodeType()) {
            case ARRAY -> "an array";
            case OBJECT, POJO -> "an object";
            case NUMBER -> "a number";
            case BOOLEAN -> "a boolean";
            case NULL -> "null";
            case STRING, BINARY -> "a string";
            case MISSING -> "nothing";
        };
    }
}
