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
            // Keyed as RateSeries.key() writes a series: "bcrp.USD".
            rows.latestRates().forEach(rate -> latestRates.put(rate.fuente() + "." + rate.moneda().strip(),
                    rate.fecha()));
            Map<String, Load> lists = new TreeMap<>();
            rows.listLoads().forEach(l -> lists.put(l.dataset(), new Load(l.rows(), l.loadedAt())));
            Publication publication = load.map(l -> new Publication(l.added(), l.changed(), l.removed()))
                    .orElse(Publication.UNKNOWN);
            return new Snapshot(registryRows, load.map(FreshnessRows.Load::loadedAt).orElse(null), rows.ubigeoCount(),
                    latestRates, lists, publication);
        });
    }

    /**
     * @param latestRates the latest publication date per series, by {@link pe.quipu.core.fx.RateSeries#key()}
     *                    ("bcrp.USD", "bcrp.EUR", "sbs.USD", "sunat.USD"), absent when none
     * @param lists       the last load of SUNAT's lists and premises, by job name ("agentes-retencion", …,
     *                    "locales-anexos"), absent before a first load
     * @param publication what the registry's last padrón load changed
     */
    public record Snapshot(long registryRows, Instant registryLoadedAt, int ubigeoCount,
                           Map<String, LocalDate> latestRates, Map<String, Load> lists, Publication publication) {
        /** Before or without any list's load, and with the registry's last changes unknown. */
        public Snapshot(long registryRows, Instant registryLoadedAt, int ubigeoCount,
                        Map<String, LocalDate> latestRates) {
            this(registryRows, registryLoadedAt, ubigeoCount, latestRates, Map.of(), Publication.UNKNOWN);
        }
    }

    /**
     * How many RUCs the registry's last publication added, changed and removed (contract §11); each null when not
     * counted: before any load, after a first load into an empty registry (which records no change), or after a load
     * made before the change log existed.
     */
    public record Publication(Long added, Long changed, Long removed) {
        public static final Publication UNKNOWN = new Publication(null, null, null);
    }

    /** What one load put in service. */
    public record Load(long rows, Instant loadedAt) {
    }

    interface FreshnessRows {
        record Load(long rows, Instant loadedAt, Long added, Long changed, Long removed) {
        }

        record LatestRate(String fuente, String moneda, LocalDate fecha) {
        }

        @SqlQuery("select rows, loaded_at, added, changed, removed from dataset_loads where dataset = 'padron'")
        @RegisterConstructorMapper(Load.class)
        Optional<Load> padronLoad();

        record ListLoad(String dataset, long rows, Instant loadedAt) {
        }

        @SqlQuery("""
                select dataset, rows, loaded_at from dataset_loads
                 where dataset in ('agentes-retencion', 'buenos-contribuyentes', 'agentes-percepcion',
                                   'agentes-percepcion-combustibles', 'locales-anexos')""")
        @RegisterConstructorMapper(ListLoad.class)
        List<ListLoad> listLoads();

        @SqlQuery("select count(*) from ruc_registry")
        long registryRows();

        @SqlQuery("select count(*) from ubigeos")
        int ubigeoCount();

        @SqlQuery("select fuente, moneda, max(fecha) as fecha from exchange_rates group by fuente, moneda")
        @RegisterConstructorMapper(LatestRate.class)
        List<LatestRate> latestRates();
    }
}
