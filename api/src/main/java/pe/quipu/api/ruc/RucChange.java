package pe.quipu.api.ruc;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

import java.time.Instant;
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
}
