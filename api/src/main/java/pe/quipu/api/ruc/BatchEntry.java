package pe.quipu.api.ruc;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.util.RawValue;

/**
 * One entry of a batch result, in the position of the RUC the caller sent. Each variant carries only its own
 * member ({@code data} or {@code error}), so the other is absent from the JSON rather than null.
 */
public sealed interface BatchEntry permits BatchEntry.Ok, BatchEntry.Failed {

    String ruc();

    String status();

    /** {@code data} is the record's JSON as the single lookup sends it (the same bytes, so the same fields). */
    @JsonPropertyOrder({"ruc", "status", "data"})
    record Ok(String ruc, RawValue data) implements BatchEntry {
        @Override
        @JsonProperty("status")
        public String status() {
            return "ok";
        }
    }

    @JsonPropertyOrder({"ruc", "status", "error"})
    record Failed(String ruc, Error error) implements BatchEntry {
        @Override
        @JsonProperty("status")
        public String status() {
            return "error";
        }
    }

    /** The subset of Problem Details the spec gives a failed entry. */
    @JsonPropertyOrder({"type", "status", "detail"})
    record Error(String type, int status, String detail) {
    }
}
