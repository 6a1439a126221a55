package pe.quipu.api.ruc;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import pe.quipu.api.domain.DomainException.InvalidInput;
import pe.quipu.api.domain.FieldError;
import pe.quipu.api.domain.StrictJson;
import pe.quipu.core.ruc.InvalidRucException;
import pe.quipu.core.ruc.Ruc;
import pe.quipu.api.domain.Text;
import pe.quipu.api.domain.RucFaults;

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
            throw InvalidInput.of(Text.of("ruc.batch.empty", shape()));
        }
        if (!root.isObject()) {
            throw InvalidInput.of(Text.of("ruc.batch.not_object", kind(root), shape()));
        }
        List<FieldError> errors = new ArrayList<>();
        root.fieldNames().forEachRemaining(name -> {
            if (!name.equals("rucs") && !name.equals("include")) {
                errors.add(new FieldError(name, Text.of("ruc.batch.unknown_member")));
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
            errors.add(new FieldError("include", Text.of("ruc.batch.include_not_array", Include.NAMES, kind(node))));
            return Include.NOTHING;
        }
        List<String> names = new ArrayList<>();
        for (int i = 0; i < node.size(); i++) {
            JsonNode element = node.get(i);
            String field = "include[" + i + "]";
            if (!element.isTextual()) {
                errors.add(new FieldError(field, Text.of("ruc.batch.include_not_name", Include.NAMES, kind(element))));
                continue;
            }
            String name = element.textValue();
            if (name.equals("padrones") || name.equals("anexos")) {
                names.add(name);
            } else {
                errors.add(new FieldError(field, Text.of("ruc.batch.include_unknown", Include.NAMES)));
            }
        }
        return Include.of(names, "include");
    }


    /** How a batch body is shaped, for the refusals of one that is not. */
    private static Text shape() {
        return Text.of("ruc.batch.shape", MAX_RUCS);
    }

    private static List<Ruc> rucs(JsonNode node, List<FieldError> errors) {
        if (node == null) {
            errors.add(new FieldError("rucs", Text.of("ruc.batch.rucs_required", shape())));
            return List.of();
        }
        if (!node.isArray()) {
            errors.add(new FieldError("rucs", Text.of("ruc.batch.rucs_not_array", kind(node))));
            return List.of();
        }
        if (node.isEmpty()) {
            errors.add(new FieldError("rucs", Text.of("ruc.batch.rucs_empty")));
            return List.of();
        }
        if (node.size() > MAX_RUCS) {
            errors.add(new FieldError("rucs", Text.of("ruc.batch.rucs_too_many", MAX_RUCS, node.size())));
            return List.of();
        }
        List<Ruc> rucs = new ArrayList<>(node.size());
        for (int i = 0; i < node.size(); i++) {
            JsonNode element = node.get(i);
            String field = "rucs[" + i + "]";
            if (!element.isTextual()) {
                errors.add(new FieldError(field, Text.of("ruc.batch.ruc_not_string", kind(element))));
                continue;
            }
            try {
                rucs.add(Ruc.parse(element.textValue()));
            } catch (InvalidRucException e) {
                errors.add(new FieldError(field, RucFaults.of(element.textValue(), e)));
            }
        }
        return rucs;
    }

    private static Text kind(JsonNode node) {
        return Text.of(switch (node.getNodeType()) {
            case ARRAY -> "ruc.batch.kind.array";
            case OBJECT, POJO -> "ruc.batch.kind.object";
            case NUMBER -> "ruc.batch.kind.number";
            case BOOLEAN -> "ruc.batch.kind.boolean";
            case NULL -> "ruc.batch.kind.null";
            case STRING, BINARY -> "ruc.batch.kind.string";
            case MISSING -> "ruc.batch.kind.nothing";
        });
    }
}
