package pe.quipu.etl.fx;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.batch.core.BatchStatus;
import org.springframework.batch.core.job.Job;
import org.springframework.batch.core.job.builder.FlowBuilder;
import org.springframework.batch.core.job.builder.FlowJobBuilder;
import org.springframework.batch.core.job.builder.JobBuilder;
import org.springframework.batch.core.job.flow.FlowExecutionStatus;
import org.springframework.batch.core.job.flow.JobExecutionDecider;
import org.springframework.batch.core.repository.JobRepository;
import org.springframework.batch.core.step.Step;
import org.springframework.batch.core.step.StepExecution;
import org.springframework.batch.core.step.builder.StepBuilder;
import org.springframework.batch.infrastructure.repeat.RepeatStatus;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import pe.quipu.core.fx.BcrpClient;
import pe.quipu.core.fx.BcrpSettings;
import pe.quipu.core.fx.ExchangeRateWriter;
import pe.quipu.core.fx.Fuente;
import pe.quipu.core.fx.RateFetch;
import pe.quipu.core.fx.RateSeries;
import pe.quipu.core.fx.RateSource;
import pe.quipu.core.fx.RatesUnavailableException;
import pe.quipu.core.fx.SunatClient;
import pe.quipu.core.fx.SunatFxSettings;
import pe.quipu.etl.run.JobOptions;
import pe.quipu.etl.run.Progress;
import pe.quipu.etl.run.RunEvents;
import pe.quipu.etl.run.StepTransaction;

import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.YearMonth;
import java.time.temporal.ChronoUnit;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

/**
 * {@code tipo-cambio [--fuente bcrp|sbs|sunat|all] [--from D] [--to D]}: backfills the rates of each source asked
 * (contract §5, §12; by default all three) for the range, by default the last 10 days. Each source is a step of its
 * own, so a run records each one's counts and outcome apart: {@code tipo-cambio-bcrp} (BCRP's USD and EUR),
 * {@code tipo-cambio-sbs} (SBS's USD, from BCRP's API), {@code tipo-cambio-sunat} (SUNAT's USD). BCRP is asked in
 * chunks of {@value #CHUNK_DAYS} days per series, SUNAT a month per chunk (it answers a month per request), and each
 * chunk is stored in a transaction of its own by the API's rules ({@link ExchangeRateWriter}: unchanged
 * publications keep their capture time, one side only is no publication, gaps only for settled days). A chunk its
 * source does not answer (after its retries) fails that source's step and leaves the chunks already stored in place;
 * the other sources still run, and the run fails at the end, naming every source that failed. A rerun only has to
 * fill in the rest. Each source's step is one {@code download} phase ({@link Progress}) that counts its requests, each
 * stored as it comes.
 */
@Configuration(proxyBeanMethods = false)
public class TipoCambioJob {

    /** Days per BCRP request: a quarter keeps each answer small (about 65 business days per currency). */
    static final int CHUNK_DAYS = 90;
    /** {@code --fuente}'s value for every source, and its default. */
    public static final String ALL = "all";
    private static final Logger LOG = LoggerFactory.getLogger(TipoCambioJob.class);

    record Chunk(RateSeries series, LocalDate from, LocalDate to) {
    }

    @Bean(destroyMethod = "close")
    BcrpClient bcrpClient(BcrpSettings settings, Clock clock) {
        return new BcrpClient(settings, clock);
    }

    @Bean(destroyMethod = "close")
    SunatClient sunatClient(SunatFxSettings settings, Clock clock) {
        return new SunatClient(settings, clock);
    }

    @Bean(name = "tipo-cambio")
    Job tipoCambio(JobRepository jobs, DataSourceTransactionManager transactions, StepTransaction stepTransaction,
                   JobOptions options, Clock clock, RunEvents events, BcrpClient bcrp, SunatClient sunat,
                   Progress progress) {
        List<Step> steps = new ArrayList<>();
        for (Fuente fuente : fuentes(options.get("fuente"))) {
            RateSource source = fuente == Fuente.SUNAT ? sunat : bcrp;
            steps.add(step(fuente, source, jobs, transactions, stepTransaction, options, clock, progress));
        }
        // Each source's step runs whatever became of the one before (unless the run is canceled); then the verdict.
        FlowBuilder<FlowJobBuilder> flow = new JobBuilder("tipo-cambio", jobs).listener(events)
                .start(steps.getFirst()).on("STOPPED").stop();
        for (int i = 0; i < steps.size(); i++) {
            if (i > 0) {
                flow.from(steps.get(i)).on("STOPPED").stop();
            }
            FlowBuilder.TransitionBuilder<FlowJobBuilder> next = flow.from(steps.get(i)).on("*");
            flow = i + 1 < steps.size() ? next.to(steps.get(i + 1)) : next.to(VERDICT);
        }
        return flow.from(VERDICT).on("FAILED").fail()
                .from(VERDICT).on("*").end()
                .end().build();
    }

    /** The run fails when a source's step failed, with every failed source's error on one line. */
    private static final JobExecutionDecider VERDICT = (execution, last) -> {
        List<StepExecution> failed = execution.getStepExecutions().stream()
                .filter(step -> step.getStatus() == BatchStatus.FAILED).toList();
        if (failed.isEmpty()) {
            return FlowExecutionStatus.COMPLETED;
        }
        execution.addFailureException(new RatesUnavailableException(failed.stream()
                .map(step -> step.getStepName().substring("tipo-cambio-".length()) + ": "
                        + step.getFailureExceptions().stream().map(RunEvents::messageOf).findFirst().orElse("failed"))
                .collect(Collectors.joining("; "))));
        return FlowExecutionStatus.FAILED;
    };

    private static Step step(Fuente fuente, RateSource source, JobRepository jobs,
                             DataSourceTransactionManager transactions, StepTransaction stepTransaction,
                             JobOptions options, Clock clock, Progress progress) {
        Deque<Chunk> pending = new ArrayDeque<>();
        AtomicBoolean planned = new AtomicBoolean();
        AtomicInteger planSize = new AtomicInteger();
        String requests = "requests to " + fuente.code();
        return new StepBuilder("tipo-cambio-" + fuente.code(), jobs)
                // One chunk per call, each call its own transaction: what is stored stays stored, and a SIGTERM
                // stops the run between chunks.
                .tasklet((contribution, context) -> {
                    // Planned when the step starts (not when the context is built), on the run's clock.
                    if (planned.compareAndSet(false, true)) {
                        pending.addAll(chunks(fuente, DateRange.of(options.values(), clock)));
                        planSize.set(pending.size());
                        progress.enter(Progress.Phase.DOWNLOAD);
                        progress.items(0, planSize.get(), requests);
                    }
                    Chunk chunk = pending.poll();
                    if (chunk == null) {
                        return RepeatStatus.FINISHED;
                    }
                    RateFetch fetch = source.fetch(chunk.series(), chunk.from(), chunk.to());
                    Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS);
                    int written = stepTransaction.inStep(handle -> ExchangeRateWriter.store(handle, fetch, now));
                    fetch.publications().forEach(p -> contribution.incrementReadCount());
                    contribution.incrementWriteCount(written);
                    progress.items(planSize.get() - pending.size(), planSize.get(), requests);
                    LOG.info("{} {}..{}: {} publications, {} new or changed", chunk.series(), chunk.from(), chunk.to(),
                            fetch.publications().size(), written);
                    return pending.isEmpty() ? RepeatStatus.FINISHED : RepeatStatus.CONTINUABLE;
                }, transactions)
                .listener(progress)
                .build();
    }

    /** The sources {@code --fuente} names, in the order they run; every source for {@value #ALL} or none given. */
    public static List<Fuente> fuentes(String option) {
        if (option == null || option.equals(ALL)) {
            return Arrays.asList(Fuente.values());
        }
        return List.of(Fuente.fromCode(option).orElseThrow(() -> new IllegalArgumentException(
                "--fuente must be bcrp, sbs, sunat or all, not " + option)));
    }

    /**
     * One source's range cut into chunks, series after series, in date order: BCRP's and SBS's of at most
     * {@value #CHUNK_DAYS} days, SUNAT's one calendar month each.
     */
    static List<Chunk> chunks(Fuente fuente, DateRange range) {
        List<Chunk> chunks = new ArrayList<>();
        for (RateSeries series : RateSeries.of(fuente)) {
            for (LocalDate from = range.from(); !from.isAfter(range.to()); ) {
                LocalDate end = fuente == Fuente.SUNAT ? YearMonth.from(from).atEndOfMonth()
                        : from.plusDays(CHUNK_DAYS - 1L);
                LocalDate to = end.isAfter(range.to()) ? range.to() : end;
                chunks.add(new Chunk(series, from, to));
                from = to.plusDays(1);
            }
        }
        return chunks;
    }
}
