package pe.quipu.api.freshness;

import org.jdbi.v3.core.Jdbi;

import java.sql.Timestamp;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/** How fresh each dataset is, read from the database: shared by {@code /v1/status} and the health check. */
public final class DataFreshness {

    private final Jdbi jdbi;

    public DataFreshness(Jdbi jdbi) {
        this.jdbi = jdbi;
    }

    public Snapshot read() {
        return jdbi.withHandle(h -> {
            Optional<Map<String, Object>> load = h.createQuery(
                            "select rows, loaded_at from dataset_loads where dataset = 'padron'")
                    .mapToMap().findOne();
            long rows = load.map(m -> ((Number) m.get("rows")).longValue())
                    .orElseGet(() -> h.createQuery("select count(*) from ruc_registry").mapTo(Long.class).one());
            // pgjdbc hands timestamptz to mapToMap as java.sql.Timestamp, whose toInstant() is exact.
            Instant loadedAt = load.map(m -> ((Timestamp) m.get("loaded_at")).toInstant()).orElse(null);
            int ubigeos = h.createQuery("select count(*) from ubigeos").mapTo(Integer.class).one();
            Map<String, LocalDate> latestRates = new TreeMap<>();
            h.createQuery("select moneda, max(fecha) as fecha from exchange_rates group by moneda")
                    .map((rs, ctx) -> Map.entry(rs.getString("moneda").strip(), rs.getObject("fecha", LocalDate.class)))
                    .forEach(e -> latestRates.put(e.getKey(), e.getValue()));
            return new Snapshot(rows, loadedAt, ubigeos, latestRates);
        });
    }

    /** @param latestRates the latest publication date per currency ("USD", "EUR"), absent when none */
    public record Snapshot(long registryRows, Instant registryLoadedAt, int ubigeoCount,
                           Map<String, LocalDate> latestRates) {
    }
}
