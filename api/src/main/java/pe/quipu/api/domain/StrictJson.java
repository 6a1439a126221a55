package pe.quipu.api.domain;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import pe.quipu.api.domain.DomainException.InvalidInput;

import java.io.IOException;

/**
 * Reads a request body as one JSON tree, strictly: trailing content after it and a member given twice are faults
 * (Jackson would otherwise drop them silently), reported with where the parser stopped. For bodies whose shape the
 * caller checks itself (a batch of RUCs, a watchlist's entries).
 */
public final class StrictJson {

    private final ObjectReader reader;

    public StrictJson(ObjectMapper json) {
        this.reader = json.reader()
                .with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .with(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
    }

    /**
     * The tree of {@code body}; null when it is empty.
     *
     * @throws InvalidInput when it is not one valid JSON value, or repeats a member
     */
    public JsonNode tree(byte[] body) {
        if (body.length == 0) {
            return null;
        }
        try {
            return reader.readTree(body);
        } catch (JsonProcessingException e) {
            boolean repeated = e.getOriginalMessage() != null && e.getOriginalMessage().startsWith("Duplicate field");
            JsonLocation at = e.getLocation();
            String key = repeated ? "domain.json.repeated_member" : "domain.json.invalid";
            throw InvalidInput.of(at == null ? Text.of(key) : Text.of(key + "_at", at.getLineNr(), at.getColumnNr()));
        } catch (IOException e) {
            throw InvalidInput.of(Text.of("domain.json.unreadable"));
        }
    }
}
