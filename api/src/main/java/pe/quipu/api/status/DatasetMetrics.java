package pe.quipu.api.status;

import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.statement.SqlQuery;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

/**
 * The data's age and the ETL's runs as Prometheus gauges (contract §13), read from the database when scraped (every
 * instance reports the same, as they share it):
 * <ul>
 *   <li>{@code quipu_dataset_age_seconds{dataset}}: since the last complete load of {@code registry} (the padrón),
 *   {@code padron-extendido}, {@code ubigeo} and each of SUNAT's lists and premises by its job's name, and since the
 *   newest exchange rate was captured from each source ({@code tipo_cambio_bcrp}, …). A dataset never loaded has no
 *   series: alert on its absence as on its age.</li>
 *   <li>{@code quipu_etl_last_run_timestamp_seconds{job, status}}: when each job last ended (or started, while it
 *   runs) with each status of Spring Batch's run history, lower case ({@code completed}, {@code failed}, …).</li>
 * </ul>
 */
public final class DatasetMetrics {

    private DatasetMetrics() {
    }

    public static void register(PrometheusRegistry registry, Jdbi jdbi, Clock clock) {
        GaugeWithCallback.builder().name("quipu_dataset_age_seconds")
                .help("Seconds since each dataset's last complete load (exchange rates: since the newest capture)")
                .labelNames("dataset")
                .callback(gauge -> {
                    Instant now = clock.instant();
                    for (Rows.Loaded loaded : jdbi.withExtension(Rows.class, Rows::loads)) {
                        gauge.call(Math.max(0, Duration.between(loaded.loadedAt(), now).toMillis() / 1000.0),
                                label(loaded.dataset()));
                    }
                }).register(registry);
        GaugeWithCallback.builder().name("quipu_etl_last_run_timestamp_seconds")
                .help("When each ETL job last ended with each status (Unix seconds)")
                .labelNames("job", "status")
                .callback(gauge -> {
                    for (Rows.Run run : jdbi.withExtension(Rows.class, Rows::runs)) {
                        gauge.call(run.at().toEpochMilli() / 1000.0, run.job(), run.status().toLowerCase(Locale.ROOT));
                    }
                }).register(registry);
    }

    /** The padrón's load is the registry's; other datasets keep their job's name. */
    static String label(String dataset) {
        return dataset.equals("padron") ? "registry" : dataset;
    }

    interface Rows {
        record Loaded(String dataset, Instant loadedAt) {
        }

        record Run(String job, String status, Instant at) {
        }

        @SqlQuery("""
                select dataset, loaded_at from dataset_loads
                union all
                select 'tipo_cambio_' || lower(fuente), max(capturado_en) from exchange_rates group by fuente""")
        @RegisterConstructorMapper(Loaded.class)
        List<Loaded> loads();

        @SqlQuery("""
                select i.job_name as job, e.status, max(coalesce(e.end_time, e.start_time, e.create_time)) as at
                  from batch_job_execution e join batch_job_instance i on i.job_instance_id = e.job_instance_id
                 group by i.job_name, e.status""")
        @RegisterConstructorMapper(Run.class)
        List<Run> runs();
    }
}
