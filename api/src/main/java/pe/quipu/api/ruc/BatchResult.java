package pe.quipu.api.ruc;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;

import java.util.List;

/** The batch answer: counts, then one entry per submitted RUC in request order. */
@JsonPropertyOrder({"total", "ok", "errors", "results"})
public record BatchResult(int total, int ok, int errors, List<BatchEntry> results) {

    public static BatchResult of(List<BatchEntry> results) {
        int ok = (int) results.stream().filter(e -> e instanceof BatchEntry.Ok).count();
        return new BatchResult(results.size(), ok, results.size() - ok, List.copyOf(results));
    }
}
