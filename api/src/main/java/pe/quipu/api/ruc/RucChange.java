package pe.quipu.api.ruc;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One entry of the registry's change log as the API writes it (contract §11): what a load changed about one RUC. The
 * same object for a RUC's history and, later, for a watchlist's changes and the {@code ruc.changed} event.
 *
 * <p>Every member is always written: {@code changes} is null unless {@code kind} is {@code changed}, {@code padrones}
 * null unless it is {@code padrones}, as the RUC record writes its nulls. A client (or a generated SDK) reads one
 * fixed shape and switches on {@code kind}.
 *
 * @param kind      {@code added}, {@code removed}, {@code changed} or {@code padrones}
 * @param changes   for {@code changed}: each differing field, {@link #FIELDS} order first, with its old and new value
 * @param padrones  for {@code padrones}: the lists the RUC joined and left
 * @param loadRunId the ETL run that published the change (the {@code runId} of its {@code etl.run.*} events)
 * @param at        when the load published it; for a padrón or extended-padrón change, the record's new
 *                  {@code actualizado}
 */
@JsonInclude(JsonInclude.Include.ALWAYS)
@JsonPropertyOrder({"ruc", "kind", "changes", "padrones", "loadRunId", "at"})
public record RucChange(String ruc, String kind, Map<String, FieldChange> changes, Padrones padrones,
                        long loadRunId, Instant at) {

    /** The fields a {@code changed} entry may list, in the RUC record's order (contract §11). */
    public static final List<String> FIELDS = List.of("razonSocial", "estado", "condicion", "tipo", "ubigeo",
            "direccion", "ciiu");

    /** One field's value before and after the load; either may be null (a field published empty). */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    @JsonPropertyOrder({"from", "to"})
    public record FieldChange(String from, String to) {
    }

    /** The lists of SUNAT (contract §10) the RUC joined and left in one load; each {@code []} when none. */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    @JsonPropertyOrder({"joined", "left"})
    public record Padrones(List<String> joined, List<String> left) {
    }

    /**
     * The change a row of the log ({@code ruc_changes}) holds, its jsonb members given as their text: the differing
     * fields in the record's order ({@link #FIELDS}), then any other the log names, in its order.
     */
    public static RucChange fromLog(ObjectMapper json, String ruc, String kind, String changes, String padrones,
                                    long loadRunId, Instant at) {
        return new RucChange(ruc.strip(), kind, changes(read(json, changes)), padrones(read(json, padrones)),
                loadRunId, at);
    }

    /** The differing fields in the record's order, then any other the log names, in its order. */
    private static Map<String, RucChange.FieldChange> changes(JsonNode stored) {
        if (stored == null || !stored.isObject()) {
            return null;
        }
        Map<String, RucChange.FieldChange> changes = new LinkedHashMap<>();
        for (String field : RucChange.FIELDS) {
            if (stored.has(field)) {
                changes.put(field, fieldChange(stored.get(field)));
            }
        }
        for (Iterator<String> names = stored.fieldNames(); names.hasNext(); ) {
            String field = names.next();
            changes.computeIfAbsent(field, f -> fieldChange(stored.get(f)));
        }
        return changes;
    }

    private static RucChange.FieldChange fieldChange(JsonNode change) {
        return new RucChange.FieldChange(text(change.get("from")), text(change.get("to")));
    }

    private static RucChange.Padrones padrones(JsonNode stored) {
        if (stored == null || !stored.isObject()) {
            return null;
        }
        return new RucChange.Padrones(names(stored.get("joined")), names(stored.get("left")));
    }

    private static List<String> names(JsonNode list) {
        List<String> names = new ArrayList<>();
        if (list != null) {
            list.forEach(name -> names.add(name.asText()));
        }
        return names;
    }

    private static String text(JsonNode value) {
        return value == null || value.isNull() ? null : value.asText();
    }

    private static JsonNode read(ObjectMapper json, String text) {
        if (text == null) {
            return null;
        }
        try {
            return json.readTree(text);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("PostgreSQL's jsonb is always JSON", e);
        }
    }
}
