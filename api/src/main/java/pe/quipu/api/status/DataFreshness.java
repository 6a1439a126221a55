package pe.quipu.api.status;

import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.statement.SqlQuery;

import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
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
            FreshnessRows rows = h.attach(FreshnessRows.class);
            Optional<FreshnessRows.Load> load = rows.padronLoad();
            long registryRows = load.map(FreshnessRows.Load::rows).orElseGet(rows::registryRows);
            Map<String, LocalDate> latestRates = new TreeMap<>();
            rows.latestRates().forEach(rate -> latestRates.put(rate.moneda().strip(), rate.fecha()));
            return new Snapshot(registryRows, load.map(FreshnessRows.Load::loadedAt).orElse(null), rows.ubigeoCount(),
                    latestRates);
        });
    }

    /** @param latestRates the latest publication date per currency ("USD", "EUR"), absent when none */
    public record Snapshot(long registryRows, Instant registryLoadedAt, int ubigeoCount,
                           Map<String, LocalDate> latestRates) {
    }

    interface FreshnessRows {
        record Load(long rows, Instant loadedAt) {
        }

        record LatestRate(String moneda, LocalDate fecha) {
        }

        @SqlQuery("select rows, loaded_at from dataset_loads where dataset = 'padron'")
        @RegisterConstructorMapper(Load.class)
        Optional<Load> padronLoad();

        @SqlQuery("select count(*) from ruc_registry")
        long registryRows();

        @SqlQuery("select count(*) from ubigeos")
        int ubigeoCount();

        @SqlQuery("select moneda, max(fecha) as fecha from exchange_rates group by moneda")
        @RegisterConstructorMapper(LatestRate.class)
        List<LatestRate> latestRates();
    }
}
