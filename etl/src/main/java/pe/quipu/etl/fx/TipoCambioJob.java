package pe.quipu.etl.fx;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.batch.core.job.Job;
import org.springframework.batch.core.job.builder.JobBuilder;
import org.springframework.batch.core.repository.JobRepository;
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
import pe.quipu.etl.run.JobOptions;
import pe.quipu.etl.run.RunEvents;
import pe.quipu.etl.run.StepTransaction;

import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.temporal.ChronoUnit;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@code tipo-cambio [--from D] [--to D]}: backfills BCRP's own USD and EUR rates (contract §5) for the range, by
 * default the last 10 days. Each currency's range is asked for in chunks of {@value #CHUNK_DAYS} days, one BCRP
 * request each, and each chunk is stored in a transaction of its own by the API's rules
 * ({@link ExchangeRateWriter}: unchanged publications keep their capture time, {@code n.d.} on either side is
 * no publication, gaps only for settled days). A chunk BCRP does not answer (after its retries) fails the run
 * and leaves the chunks already stored in place, so a rerun only has to fill in the rest.
 */
@Configuration(proxyBeanMethods = false)
public class TipoCambioJob {

    /** Days per BCRP request: a quarter keeps each answer small (about 65 business days per currency). */
    static final int CHUNK_DAYS = 90;
    private static final Logger LOG = LoggerFactory.getLogger(TipoCambioJob.class);

    record Chunk(RateSeries series, LocalDate from, LocalDate to) {
    }

    @Bean(destroyMethod = "close")
    BcrpClient bcrpClient(BcrpSettings settings, Clock clock) {
        return new BcrpClient(settings, clock);
    }

    @Bean(name = "tipo-cambio")
    Job tipoCambio(JobRepository jobs, DataSourceTransactionManager transactions, StepTransaction stepTransaction,
                   JobOptions options, Clock clock, RunEvents events, BcrpClient bcrp) {
        Deque<Chunk> pending = new ArrayDeque<>();
        AtomicBoolean planned = new AtomicBoolean();
        return new JobBuilder("tipo-cambio", jobs)
                .listener(events)
                .start(new StepBuilder("backfill-rates", jobs)
                        // One chunk per call, each call its own transaction: what is stored stays stored, and a
                        // SIGTERM stops the run between chunks.
                        .tasklet((contribution, context) -> {
                            // Planned when the run starts (not when the context is built), on the run's clock.
                            if (planned.compareAndSet(false, true)) {
                                pending.addAll(chunks(DateRange.of(options.values(), clock)));
                            }
                            Chunk chunk = pending.poll();
                            if (chunk == null) {
                                return RepeatStatus.FINISHED;
                            }
                            RateFetch fetch = bcrp.fetch(chunk.series(), chunk.from(), chunk.to());
                            Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS);
                            int written = stepTransaction.inStep(handle ->
                                    ExchangeRateWriter.store(handle, fetch, now));
                            fetch.publications().forEach(p -> contribution.incrementReadCount());
                            contribution.incrementWriteCount(written);
                            LOG.info("{} {}..{}: {} publications, {} new or changed", chunk.series(), chunk.from(),
                                    chunk.to(), fetch.publications().size(), written);
                            return pending.isEmpty() ? RepeatStatus.FINISHED : RepeatStatus.CONTINUABLE;
                        }, transactions)
                        .build())
                .build();
    }

    /** Every currency's range cut into chunks of at most {@value #CHUNK_DAYS} days, in date order. */
    static List<Chunk> chunks(DateRange range) {
        List<Chunk> chunks = new ArrayList<>();
        for (RateSeries series : RateSeries.of(Fuente.BCRP)) {
            for (LocalDate from = range.from(); !from.isAfter(range.to()); from = from.plusDays(CHUNK_DAYS)) {
                LocalDate to = from.plusDays(CHUNK_DAYS - 1L);
                chunks.add(new Chunk(series, from, to.isAfter(range.to()) ? range.to() : to));
            }
        }
        return chunks;
    }
}
