package pe.quipu.etl.sunat;

import org.jdbi.v3.core.Jdbi;
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
import pe.quipu.etl.run.JobOptions;
import pe.quipu.etl.run.EtlSettings;
import pe.quipu.etl.run.Cancellation;
import pe.quipu.etl.run.Progress;
import pe.quipu.etl.run.RejectedShare;
import pe.quipu.etl.run.RunEvents;
import pe.quipu.etl.run.Staged;
import pe.quipu.etl.source.SourceFile;

import java.time.Clock;
import java.time.temporal.ChronoUnit;
import java.util.Locale;

/**
 * {@code agentes-retencion}, {@code buenos-contribuyentes}, {@code agentes-percepcion},
 * {@code agentes-percepcion-combustibles} and {@code locales-anexos}, each {@code --file PATH | --url URL}:
 * one of SUNAT's files (contract §10) replaces its list or the premises, in the padrón job's two steps.
 *
 * <ol>
 *   <li>{@code stage}: drops what a failed or killed run left, then streams the file (zip or txt, downloaded first
 *   for --url) into an unlogged staging table with COPY, its columns found by header name. Counts: read = data
 *   lines, rejected (filter) = lines with a bad RUC, date or ubigeo, plus earlier lines of a RUC met twice in a
 *   list; the first rejected lines are logged and kept in the step's context ({@code rejected.sample}).</li>
 *   <li>{@code publish}: refuses the file when the rejected share is over {@code etl.maxRejectedShare}, or when it
 *   holds fewer rows than {@code etl.minRetainedShare} of the copy a previous run put in service, or when a list's
 *   file would take more than {@code changes.maxRemovedShare} of its RUCs off it; otherwise replaces the list, with
 *   the change log's rows of the RUCs that joined or left it ({@link ListPublisher}), or swaps in the premises
 *   (which record nothing), in one transaction. Written = rows in service.</li>
 * </ol>
 * Phases ({@link Progress}): {@code download} (--url), {@code stage}, then for a list {@code compare} (who joins and
 * leaves) and {@code publish}, for the premises {@code publish} and {@code index}.
 */
@Configuration(proxyBeanMethods = false)
public class SunatJobs {

    private static final Logger LOG = LoggerFactory.getLogger(SunatJobs.class);

    @Bean(name = "agentes-retencion")
    Job agentesRetencion(JobRepository jobs, DataSourceTransactionManager transactions, Jdbi jdbi,
                         JobOptions options, EtlSettings settings, ChangesSettings changes, Clock clock,
                         RunEvents events, Progress progress) {
        return job(SunatFile.AGENTES_RETENCION, jobs, transactions, jdbi, options, settings, changes, clock, events,
                progress);
    }

    @Bean(name = "buenos-contribuyentes")
    Job buenosContribuyentes(JobRepository jobs, DataSourceTransactionManager transactions, Jdbi jdbi,
                             JobOptions options, EtlSettings settings, ChangesSettings changes, Clock clock,
                             RunEvents events, Progress progress) {
        return job(SunatFile.BUENOS_CONTRIBUYENTES, jobs, transactions, jdbi, options, settings, changes, clock,
                events, progress);
    }

    @Bean(name = "agentes-percepcion")
    Job agentesPercepcion(JobRepository jobs, DataSourceTransactionManager transactions, Jdbi jdbi,
                          JobOptions options, EtlSettings settings, ChangesSettings changes, Clock clock,
                          RunEvents events, Progress progress) {
        return job(SunatFile.AGENTES_PERCEPCION, jobs, transactions, jdbi, options, settings, changes, clock, events,
                progress);
    }

    @Bean(name = "agentes-percepcion-combustibles")
    Job agentesPercepcionCombustibles(JobRepository jobs, DataSourceTransactionManager transactions, Jdbi jdbi,
                                      JobOptions options, EtlSettings settings, ChangesSettings changes, Clock clock,
                                      RunEvents events, Progress progress) {
        return job(SunatFile.AGENTES_PERCEPCION_COMBUSTIBLES, jobs, transactions, jdbi, options, settings, changes,
                clock, events, progress);
    }

    @Bean(name = "locales-anexos")
    Job localesAnexos(JobRepository jobs, DataSourceTransactionManager transactions, Jdbi jdbi,
                      JobOptions options, EtlSettings settings, ChangesSettings changes, Clock clock,
                      RunEvents events, Progress progress) {
        return job(SunatFile.LOCALES_ANEXOS, jobs, transactions, jdbi, options, settings, changes, clock, events,
                progress);
    }

    private static Job job(SunatFile file, JobRepository jobs, DataSourceTransactionManager transactions, Jdbi jdbi,
                           JobOptions options, EtlSettings settings, ChangesSettings changes, Clock clock,
                           RunEvents events, Progress progress) {
        return new JobBuilder(file.jobName(), jobs)
                .listener(events)
                .start(new StepBuilder("stage", jobs)
                        .tasklet((contribution, chunk) -> {
                            StepExecution step = chunk.getStepContext().getStepExecution();
                            SunatStager.dropLeftovers(jdbi, file);
                            Staged result = stage(file, options, settings, jdbi, step, progress);
                            result.recordIn(contribution, step);
                            LOG.info("{}: staged {} rows from {} lines; rejected {} malformed and {} duplicated",
                                    file.jobName(), result.staged(), result.read(), result.malformed(),
                                    result.duplicates());
                            return RepeatStatus.FINISHED;
                        }, transactions)
                        .listener(progress)
                        .build())
                .next(new StepBuilder("publish", jobs)
                        .tasklet((contribution, chunk) -> {
                            StepExecution step = chunk.getStepContext().getStepExecution();
                            StepExecution staged = Staged.stepOf(step);
                            try {
                                refuseOverThreshold(file, staged, settings.maxRejectedShare());
                                refuseShrinking(file, Staged.stagedBy(staged), settings.minRetainedShare(), jdbi);
                                Cancellation.check(step, "before publishing");
                            } catch (Exception refused) {
                                SunatStager.dropLeftovers(jdbi, file);
                                throw refused;
                            }
                            long rows;
                            try {
                                rows = file.isList()
                                        ? new ListPublisher(jdbi, changes.maxRemovedShare(), progress).publish(file,
                                                clock.instant().truncatedTo(ChronoUnit.MICROS), step.getJobExecutionId())
                                        : new AnexosPublisher(jdbi, progress).publish(clock.instant());
                            } catch (RuntimeException refusedOrFailed) {
                                // Rolled back: the data in service stays; the staging table goes now.
                                SunatStager.dropLeftovers(jdbi, file);
                                throw refusedOrFailed;
                            }
                            contribution.incrementWriteCount(rows);
                            LOG.info("{}: {} rows in service", file.jobName(), rows);
                            return RepeatStatus.FINISHED;
                        }, transactions)
                        .listener(progress)
                        .build())
                .build();
    }

    private static Staged stage(SunatFile file, JobOptions options, EtlSettings settings, Jdbi jdbi,
                                StepExecution step, Progress progress) throws Exception {
        SunatStager stager = new SunatStager(jdbi, file);
        return Staged.orDrop(() -> SourceFile.read(options.get("file"), options.get("url"),
                file.jobName(), ".txt", settings.maxDownloadBytes(),
                in -> stager.stage(in, () -> Cancellation.requested(step), progress), digest -> digest.recordIn(step),
                progress),
                () -> SunatStager.dropLeftovers(jdbi, file));
    }

    private static void refuseOverThreshold(SunatFile file, StepExecution staged, double maxShare) {
        long read = staged.getReadCount();
        if (read == 0) {
            throw new IllegalStateException("the file holds no " + file.jobName()
                    + " lines; the data in service is unchanged");
        }
        RejectedShare.refuseAbove(read, staged.getFilterCount(), maxShare, Staged.sampleOf(staged));
    }

    /**
     * A truncated download would otherwise take RUCs off a list (a supplier suddenly "not a withholding agent") or
     * drop premises: a file with fewer rows than {@code etl.minRetainedShare} of the copy in service is refused.
     */
    private static void refuseShrinking(SunatFile file, long staged, double minShare, Jdbi jdbi) {
        long inService = jdbi.withHandle(h -> h.createQuery("select rows from dataset_loads where dataset = :dataset")
                .bind("dataset", file.jobName())
                .mapTo(Long.class)
                .findOne()).orElse(0L);
        if (inService == 0 || staged >= minShare * inService) {
            return;
        }
        throw new IllegalStateException(String.format(Locale.ROOT,
                "the file holds %d rows, %.1f %% of the %d in service, under the %.1f %% a %s file must keep"
                        + " (etl.minRetainedShare): is it truncated? The data in service is unchanged; to replace"
                        + " it with a smaller file on purpose, run with QUIPU_ETL_MIN_RETAINED_SHARE=0",
                staged, 100.0 * staged / inService, inService, 100.0 * minShare, file.jobName()));
    }
}
