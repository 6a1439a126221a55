package pe.quipu.etl.padron;

import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.batch.core.job.Job;
import org.springframework.batch.core.job.builder.JobBuilder;
import org.springframework.batch.core.repository.JobRepository;
import org.springframework.batch.core.step.StepExecution;
import org.springframework.batch.core.step.builder.StepBuilder;
import org.springframework.batch.infrastructure.repeat.RepeatStatus;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import pe.quipu.core.ruc.ChangesSettings;
import pe.quipu.core.ruc.SearchSettings;
import pe.quipu.etl.run.JobOptions;
import pe.quipu.etl.run.EtlSettings;
import pe.quipu.etl.run.Cancellation;
import pe.quipu.etl.run.Progress;
import pe.quipu.etl.run.RejectedShare;
import pe.quipu.etl.run.RunEvents;
import pe.quipu.etl.run.Staged;
import pe.quipu.etl.source.SourceFile;

import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.Optional;

/**
 * {@code padron --file PATH | --url URL}: SUNAT's padrón reducido replaces the RUC registry.
 *
 * <ol>
 *   <li>{@code stage}: drops what a failed or killed run left, then streams the file (zip or txt, downloaded
 *   first for --url) through the parser into an unlogged staging table with COPY. Counts: read = data lines,
 *   rejected (filter) = malformed lines plus earlier lines of a RUC met twice. The first rejected lines are
 *   logged and kept in the step's execution context ({@code rejected.sample}).</li>
 *   <li>{@code publish}: refuses the file when the rejected share is over {@code etl.maxRejectedShare}, or when
 *   it holds fewer records than {@code etl.minRetainedShare} of the registry in service, or when it would remove
 *   more than {@code changes.maxRemovedShare} of it (the registry in service stays); otherwise publishes it in one
 *   transaction, with the change log's rows ({@link RegistryPublisher}). Written = records in service after it.</li>
 * </ol>
 * Both steps stop on request (SIGTERM): the run ends canceled and the registry in service stays. Its phases
 * ({@link Progress}): {@code download} (--url), {@code stage}, then {@code compare} (unless the registry is empty),
 * {@code publish}, and {@code index} when a new registry is built.
 */
@Configuration(proxyBeanMethods = false)
public class PadronJob {

    private static final Logger LOG = LoggerFactory.getLogger(PadronJob.class);

    @Bean(name = "padron")
    Job padron(JobRepository jobs, DataSourceTransactionManager transactions, Jdbi jdbi, JobOptions options,
               EtlSettings settings, SearchSettings search, ChangesSettings changes, Clock clock, RunEvents events,
               Progress progress) {
        return new JobBuilder("padron", jobs)
                .listener(events)
                .start(new StepBuilder("stage", jobs)
                        .tasklet((contribution, chunk) -> {
                            StepExecution step = chunk.getStepContext().getStepExecution();
                            PadronStager.dropLeftovers(jdbi);
                            long inServiceRecords = jdbi.withHandle(h -> h.attach(LoadRows.class).registrySize());
                            RegistryLines inService = inService(jdbi, inServiceRecords);
                            // Into an empty registry, straight into the new one, with the time its records get.
                            Instant firstLoadAt = inServiceRecords == 0
                                    ? clock.instant().truncatedTo(ChronoUnit.MICROS) : null;
                            PadronStager.Result staging = stage(options, settings, jdbi, inService, firstLoadAt, step,
                                    progress);
                            Staged result = staging.staged();
                            result.recordIn(contribution, step);
                            step.getExecutionContext().put(CHANGED_LINES_ONLY, staging.changedLinesOnly());
                            if (firstLoadAt != null) {
                                step.getExecutionContext().putLong(FIRST_LOAD_AT,
                                        ChronoUnit.MICROS.between(Instant.EPOCH, firstLoadAt));
                            }
                            step.getExecutionContext().putLong(UNCHANGED_LINES, staging.unchangedLines());
                            LOG.info("staged {} records from {} lines; rejected {} malformed and {} duplicated{}",
                                    result.staged(), result.read(), result.malformed(), result.duplicates(),
                                    staging.changedLinesOnly() ? "; " + staging.unchangedLines()
                                            + " lines unchanged since the last load, not staged" : "");
                            return RepeatStatus.FINISHED;
                        }, transactions)
                        .listener(progress)
                        .build())
                .next(new StepBuilder("publish", jobs)
                        .tasklet((contribution, chunk) -> {
                            StepExecution step = chunk.getStepContext().getStepExecution();
                            StepExecution staged = Staged.stepOf(step);
                            refuseOverThreshold(staged, settings.maxRejectedShare(), jdbi);
                            long records = Staged.stagedBy(staged);
                            refuseShrinking(records, settings.minRetainedShare(), jdbi);
                            Cancellation.check(step, "before publishing");
                            long t = System.nanoTime();
                            RegistryPublisher.Published published;
                            try {
                                RegistryPublisher.Staging how = staged.getExecutionContext().containsKey(FIRST_LOAD_AT)
                                        ? RegistryPublisher.Staging.NEW_REGISTRY
                                        : Boolean.TRUE.equals(staged.getExecutionContext().get(CHANGED_LINES_ONLY))
                                        ? RegistryPublisher.Staging.CHANGED_LINES : RegistryPublisher.Staging.EVERY_LINE;
                                Instant now = how == RegistryPublisher.Staging.NEW_REGISTRY
                                        ? Instant.EPOCH.plus(staged.getExecutionContext().getLong(FIRST_LOAD_AT),
                                        ChronoUnit.MICROS)
                                        : clock.instant().truncatedTo(ChronoUnit.MICROS);
                                published = new RegistryPublisher(jdbi, search.enabled(), changes.maxRemovedShare(),
                                        progress).publish(now, step.getJobExecutionId(), records, how);
                            } catch (RuntimeException refusedOrFailed) {
                                // Rolled back: the registry in service stays; the staging table goes now.
                                PadronStager.dropLeftovers(jdbi);
                                throw refusedOrFailed;
                            }
                            contribution.incrementWriteCount(published.rows());
                            LOG.info("registry in service: {} records ({}: {} added, {} changed, {} removed),"
                                            + " published in {} ms", published.rows(),
                                    published.how().name().toLowerCase(Locale.ROOT).replace('_', ' '),
                                    published.added(), published.changed(), published.removed(),
                                    (System.nanoTime() - t) / 1_000_000);
                            return RepeatStatus.FINISHED;
                        }, transactions)
                        .listener(progress)
                        .build())
                .build();
    }

    private static PadronStager.Result stage(JobOptions options, EtlSettings settings, Jdbi jdbi,
                                             RegistryLines inService, Instant firstLoadAt, StepExecution step,
                                             Progress progress) throws Exception {
        PadronStager stager = new PadronStager(jdbi);
        return Staged.orDrop(() -> SourceFile.read(options.get("file"), options.get("url"),
                "padron", ".txt", settings.maxDownloadBytes(),
                in -> stager.stage(in, inService, firstLoadAt, () -> Cancellation.requested(step), progress),
                digest -> digest.recordIn(step), progress),
                () -> PadronStager.dropLeftovers(jdbi));
    }

    /** Connections that read the registry's lines at once: one per processor, at most 4 (RegistryLines.read). */
    private static final int REGISTRY_READERS = Math.min(4, Runtime.getRuntime().availableProcessors());

    /**
     * The registry in service's lines, for staging only the lines that changed; null when the registry is empty
     * (a first load stages everything) or when comparing it in memory would not fit in the heap, which then stages
     * every line for PostgreSQL to compare, as slower but in bounded memory.
     */
    private static RegistryLines inService(Jdbi jdbi, long records) throws Exception {
        if (records == 0) {
            return null;
        }
        long heap = Runtime.getRuntime().maxMemory();
        if (!RegistryLines.fits(records, heap)) {
            LOG.warn("Comparing the {} records in service in memory needs about {} MB of heap, more than this run's"
                            + " {} MB allow: every line is staged and compared in the database instead, which is"
                            + " slower (a larger -Xmx, in JAVA_TOOL_OPTIONS for instance, avoids it)", records,
                    RegistryLines.heapNeeded(records) >> 20, heap >> 20);
            return null;
        }
        long t = System.nanoTime();
        RegistryLines lines = RegistryLines.read(jdbi, REGISTRY_READERS);
        LOG.info("read the lines of the {} records in service in {} ms", lines.size(),
                (System.nanoTime() - t) / 1_000_000);
        return lines;
    }

    private static void refuseOverThreshold(StepExecution staged, double maxShare, Jdbi jdbi) {
        long read = staged.getReadCount();
        long rejected = staged.getFilterCount();
        if (read == 0) {
            PadronStager.dropLeftovers(jdbi);
            throw new IllegalStateException("the file holds no padrón lines; the registry in service is unchanged");
        }
        try {
            RejectedShare.refuseAbove(read, rejected, maxShare, Staged.sampleOf(staged));
        } catch (IllegalStateException overThreshold) {
            PadronStager.dropLeftovers(jdbi);
            throw overThreshold;
        }
    }

    /**
     * A file that parses cleanly but stops early (a truncated download, a half-written export) would otherwise
     * replace the registry with part of it, and lookups of every RUC after the cut would answer 404. The padrón
     * changes by well under 1 % a day, so a file much smaller than the registry a previous run put in service is
     * refused: fewer than {@code etl.minRetainedShare} of its records (0 turns the check off).
     */
    private static void refuseShrinking(long staged, double minShare, Jdbi jdbi) {
        long inService = jdbi.withHandle(handle -> handle.attach(LoadRows.class).registryInService()).orElse(0L);
        if (inService == 0 || staged >= minShare * inService) {
            return;
        }
        PadronStager.dropLeftovers(jdbi);
        throw new IllegalStateException(String.format(Locale.ROOT,
                "the file holds %d records, %.1f %% of the %d in service, under the %.1f %% a padrón must keep"
                        + " (etl.minRetainedShare): is it truncated? The registry in service is unchanged; to"
                        + " replace it with a smaller file on purpose, run with QUIPU_ETL_MIN_RETAINED_SHARE=0",
                staged, 100.0 * staged / inService, inService, 100.0 * minShare));
    }

    /** The staging step's context: whether it staged only the lines that changed ({@link RegistryLines}). */
    static final String CHANGED_LINES_ONLY = "staged.changedLinesOnly";
    /** The staging step's context: a first load's time (microseconds since 1970), when it staged into a new registry. */
    static final String FIRST_LOAD_AT = "staged.firstLoadAt";
    /** The staging step's context: the lines that were the ones their records were loaded from, not staged. */
    static final String UNCHANGED_LINES = "staged.unchangedLines";

    interface LoadRows {
        /**
         * The registry's size, for sizing its comparison: the planner's estimate (kept by ANALYZE, which every new
         * registry gets, and by autovacuum), or a count when there is none yet; 0 when it is empty.
         */
        @SqlQuery("""
                select case when not exists (select 1 from ruc_registry) then 0
                            when c.reltuples >= 0 then c.reltuples::bigint
                            else (select count(*) from ruc_registry) end
                  from pg_class c where c.oid = 'ruc_registry'::regclass""")
        long registrySize();

        /** The records the last complete load put in service, if any did. */
        @SqlQuery("select rows from dataset_loads where dataset = 'padron'")
        Optional<Long> registryInService();
    }
}
