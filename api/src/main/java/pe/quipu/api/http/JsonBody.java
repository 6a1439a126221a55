package pe.quipu.api.http;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import pe.quipu.api.domain.DomainException.InvalidInput;
import pe.quipu.api.domain.FieldError;
import pe.quipu.api.domain.Text;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Reads a small JSON object body (accounts, keys, profile) member by member, so that every fault is reported at
 * once with its field: unknown members, wrong types, missing required ones. Bodies over 16 KiB are refused (413).
 */
public final class JsonBody {

    static final int MAX_BYTES = 16 * 1024;

    private final ObjectReader reader;

    public JsonBody(ObjectMapper json) {
        this.reader = json.reader()
                .with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .with(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
    }

    /** The body as an object holding only {@code allowed} members; read its members from the returned {@link Fields}. */
    public Fields read(String contentType, InputStream body, Set<String> allowed) {
        if (contentType == null || contentType.isBlank()) {
            throw ApiProblem.of(ProblemType.UNSUPPORTED_MEDIA_TYPE, Text.of("http.send_json"));
        }
        return fields(readBytes(body), allowed);
    }

    /**
     * As {@link #read}, for a body that may be left out: none at all (not one byte, with or without a
     * Content-Type) is empty; any other is read and checked as {@link #read} does.
     */
    public Optional<Fields> readIfAny(String contentType, InputStream body, Set<String> allowed) {
        byte[] bytes = readBytes(body);
        if (bytes.length == 0) {
            return Optional.empty();
        }
        if (contentType == null || contentType.isBlank()) {
            throw ApiProblem.of(ProblemType.UNSUPPORTED_MEDIA_TYPE, Text.of("http.send_json"));
        }
        return Optional.of(fields(bytes, allowed));
    }

    private static byte[] readBytes(InputStream body) {
        return RequestBody.readAtMost(body, MAX_BYTES, Text.of("http.body_too_large", MAX_BYTES));
    }

    private Fields fields(byte[] bytes, Set<String> allowed) {
        JsonNode root = parse(bytes);
        if (root == null || root.isMissingNode() || !root.isObject()) {
            throw InvalidInput.of(Text.of("http.json.object_with_members",
                    String.join(", ", allowed.stream().sorted().toList())));
        }
        Fields fields = new Fields(root);
        root.fieldNames().forEachRemaining(name -> {
            if (!allowed.contains(name)) {
                fields.errors.add(new FieldError(name, Text.of("http.json.unknown_member")));
            }
        });
        return fields;
    }

    /** The members of one body; faults accumulate until {@link #validate()}. */
    public static final class Fields {
        private final JsonNode root;
        private final List<FieldError> errors = new ArrayList<>();

        private Fields(JsonNode root) {
            this.root = root;
        }

        public boolean has(String name) {
            return root.has(name);
        }

        /** Whether the member is present with the value {@code null}. */
        public boolean isNull(String name) {
            return root.has(name) && root.get(name).isNull();
        }

        /**
         * A string member; null when absent (recorded as a fault when required), of another type, or holding a
         * character {@link TextInput} refuses (recorded as a fault naming the member).
         */
        public String text(String name, boolean required) {
            JsonNode node = root.get(name);
            if (node == null || node.isNull()) {
                if (required) {
                    errors.add(new FieldError(name, Text.of("http.json.required")));
                }
                return null;
            }
            if (!node.isTextual()) {
                errors.add(new FieldError(name, Text.of("http.json.not_string")));
                return null;
            }
            Text fault = TextInput.fault(node.textValue());
            if (fault != null) {
                errors.add(new FieldError(name, fault));
                return null;
            }
            return node.textValue();
        }

        /** An integer member; null when absent (recorded as a fault when required) or of another type. */
        public Integer integer(String name, boolean required) {
            JsonNode node = root.get(name);
            if (node == null || node.isNull()) {
                if (required) {
                    errors.add(new FieldError(name, Text.of("http.json.required")));
                }
                return null;
            }
            if (!node.isIntegralNumber() || !node.canConvertToInt()) {
                errors.add(new FieldError(name, Text.of("http.json.not_integer")));
                return null;
            }
            return node.intValue();
        }

        /** A boolean member; null when absent (recorded as a fault when required) or of another type. */
        public Boolean bool(String name, boolean required) {
            JsonNode node = root.get(name);
            if (node == null || node.isNull()) {
                if (required) {
                    errors.add(new FieldError(name, Text.of("http.json.required")));
                }
                return null;
            }
            if (!node.isBoolean()) {
                errors.add(new FieldError(name, Text.of("http.json.not_boolean")));
                return null;
            }
            return node.booleanValue();
        }

        /** An array of strings; null when absent (recorded as a fault when required) or malformed. */
        public List<String> texts(String name, boolean required) {
            JsonNode node = root.get(name);
            if (node == null || node.isNull()) {
                if (required) {
                    errors.add(new FieldError(name, Text.of("http.json.required")));
                }
                return null;
            }
            if (!node.isArray()) {
                errors.add(new FieldError(name, Text.of("http.json.not_string_array")));
                return null;
            }
            List<String> values = new ArrayList<>(node.size());
            for (int i = 0; i < node.size(); i++) {
                if (!node.get(i).isTextual()) {
                    errors.add(new FieldError(name + "[" + i + "]", Text.of("http.json.not_string")));
                    return null;
                }
                Text fault = TextInput.fault(node.get(i).textValue());
                if (fault != null) {
                    errors.add(new FieldError(name + "[" + i + "]", fault));
                    return null;
                }
                values.add(node.get(i).textValue());
            }
            return values;
        }

        /** Records a fault found by the caller's own rules. */
        public void reject(String name, Text message) {
            errors.add(new FieldError(name, message));
        }

        /** Throws one 400 {@code validation_error} listing every fault, if any. */
        public void validate() {
            if (!errors.isEmpty()) {
                throw new InvalidInput(errors);
            }
        }
    }

    private JsonNode parse(byte[] body) {
        if (body.length == 0) {
            return null;
        }
        try {
            return reader.readTree(body);
        } catch (JsonProcessingException e) {
            boolean duplicate = e.getOriginalMessage() != null && e.getOriginalMessage().startsWith("Duplicate field");
            throw InvalidInput.of(Text.of(duplicate ? "http.json.repeated_member" : "domain.json.invalid"));
        } catch (IOException e) {
            throw InvalidInput.of(Text.of("domain.json.unreadable"));
        }
    }
}
