package pe.quipu.etl.extendido;

import org.jdbi.v3.core.Handle;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.customizer.Define;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlScript;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.batch.core.job.Job;
import org.springframework.batch.core.job.builder.JobBuilder;
import org.springframework.batch.core.repository.JobRepository;
import org.springframework.batch.core.step.StepContribution;
import org.springframework.batch.core.step.StepExecution;
import org.springframework.batch.core.step.builder.StepBuilder;
import org.springframework.batch.infrastructure.repeat.RepeatStatus;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import pe.quipu.core.db.DatasetLoads;
import pe.quipu.core.ruc.InvalidRucException;
import pe.quipu.core.ruc.RegistryChanges;
import pe.quipu.core.watchlists.WatchedChanges;
import pe.quipu.etl.run.ChangeLog;
import pe.quipu.etl.run.JobOptions;
import pe.quipu.etl.run.EtlSettings;
import pe.quipu.etl.run.Cancellation;
import pe.quipu.etl.run.Progress;
import pe.quipu.etl.run.RejectedShare;
import pe.quipu.etl.run.RunEvents;
import pe.quipu.etl.run.StepTransaction;
import pe.quipu.etl.source.SourceFile;
import pe.quipu.etl.source.SourceLines;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code padron-extendido --file PATH | --url URL}: SUNAT's PadronRUC CSV fills {@code tipo} and {@code ciiu}
 * of the RUCs already in the registry. The file is streamed into a temporary staging table with COPY, then
 * one UPDATE sets both columns, and {@code actualizado} to the run's time, only on rows whose values differ
 * (so an unchanged record keeps its ETag), with a row in the change log for each of them. Everything happens in the
 * step's single transaction: readers see the registry before the run until it commits, and a failed or killed run
 * changes nothing.
 * <p>
 * Lines that cannot be loaded (wrong field count, invalid RUC) are counted as rejected and a few are logged;
 * a run rejecting more than {@code etl.maxRejectedShare} of its lines fails. RUCs the registry does not hold
 * are counted and logged, not inserted: the padrón reducido decides which taxpayers Quipu serves.
 * <p>
 * Phases ({@link Progress}): {@code download} (--url), {@code stage}, {@code index} (the staging table's index and
 * each RUC's last line), {@code publish} (the change log and the update).
 */
@Configuration(proxyBeanMethods = false)
public class PadronExtendidoJob {

    private static final Logger LOG = LoggerFactory.getLogger(PadronExtendidoJob.class);
    private static final int SAMPLE = 10;
    private static final int COPY_BUFFER = 1 << 20;
    private static final int CANCEL_CHECK_LINES = 100_000;

    @Bean(name = "padron-extendido")
    Job padronExtendido(JobRepository jobs, DataSourceTransactionManager transactions, StepTransaction stepTransaction,
                        JobOptions options, EtlSettings settings, Clock clock, RunEvents events,
                        Progress progress) {
        return new JobBuilder("padron-extendido", jobs)
                .listener(events)
                .start(new StepBuilder("fill-tipo-ciiu", jobs)
                        .tasklet((contribution, context) -> {
                            // The tasklet's transaction: the staging table and the update commit with the step.
                            stepTransaction.useStep(handle -> load(handle, options, settings,
                                    clock.instant().truncatedTo(ChronoUnit.MICROS),
                                    contribution.getStepExecution().getJobExecutionId(), contribution, progress));
                            return RepeatStatus.FINISHED;
                        }, transactions)
                        .listener(progress)
                        .build())
                .build();
    }

    /**
     * The file, or the download of the URL ({@link SourceFile}): the CSV itself or a zip holding it, read as UTF-8
     * (a malformed byte sequence read as U+FFFD rather than failing the whole run).
     */
    private static void load(Handle handle, JobOptions options, EtlSettings settings, Instant now, long runId,
                             StepContribution contribution, Progress progress) throws Exception {
        StageRows rows = handle.attach(StageRows.class);
        rows.create();
        Counts counts = SourceFile.read(options.get("file"), options.get("url"),
                "padron-extendido", ".csv", settings.maxDownloadBytes(),
                in -> copy(handle, SourceLines.utf8(in), contribution, progress),
                digest -> digest.recordIn(contribution.getStepExecution()), progress);
        RejectedShare.refuseAbove(counts.read(), counts.rejected(), settings.maxRejectedShare(), counts.sample());
        apply(handle, rows, now, runId, contribution, progress);
    }

    private record Counts(long read, long rejected, List<String> sample) {
    }

    /** Streams the lines into the staging table, in COPY's CSV format, one buffer at a time. */
    private static Counts copy(Handle handle, SourceLines lines, StepContribution contribution, Progress progress)
            throws Exception {
        PadronRucCsv csv = PadronRucCsv.header(lines.next());
        StepExecution step = contribution.getStepExecution();
        // Plain JDBC: Jdbi has no COPY, and PgJDBC's CopyIn streams the file without a statement per line.
        CopyIn copy = handle.getConnection().unwrap(PGConnection.class).getCopyAPI()
                .copyIn("copy padron_extendido_stage (line, ruc, tipo, ciiu) from stdin (format csv)");
        long read = 0;
        long rejected = 0;
        List<String> sample = new ArrayList<>();
        ByteArrayOutputStream buffer = new ByteArrayOutputStream(COPY_BUFFER + 4096);
        StringBuilder row = new StringBuilder(64);
        progress.lines(0, 0);
        try {
            String line;
            long lineNumber = 1;
            while ((line = lines.next()) != null) {
                lineNumber++;
                if (line.isBlank()) {
                    continue;
                }
                read++;
                contribution.incrementReadCount();
                progress.lines(read, rejected);
                try {
                    PadronRucCsv.Row r = csv.row(line);
                    row.setLength(0);
                    row.append(lineNumber).append(',').append(r.ruc().value()).append(',');
                    quote(row, r.tipo());
                    row.append(',');
                    quote(row, r.ciiu());
                    row.append('\n');
                    buffer.writeBytes(row.toString().getBytes(StandardCharsets.UTF_8));
                } catch (PadronRucCsv.MalformedLineException | InvalidRucException e) {
                    rejected++;
                    contribution.incrementFilterCount();
                    progress.lines(read, rejected);
                    if (sample.size() < SAMPLE) {
                        String where = "line " + lineNumber + ": " + e.getMessage();
                        sample.add(where);
                        LOG.warn("Rejected {}", where);
                    }
                }
                if (buffer.size() >= COPY_BUFFER) {
                    copy.writeToCopy(buffer.toByteArray(), 0, buffer.size());
                    buffer.reset();
                }
                if (read % CANCEL_CHECK_LINES == 0) {
                    Cancellation.check(step, "while reading line " + lineNumber);
                }
            }
            if (buffer.size() > 0) {
                copy.writeToCopy(buffer.toByteArray(), 0, buffer.size());
            }
            copy.endCopy();
        } finally {
            if (copy.isActive()) {
                copy.cancelCopy();
            }
        }
        return new Counts(read, rejected, sample);
    }

    /** COPY's CSV: null unquoted and empty, a value always quoted (so an empty string stays one). */
    private static void quote(StringBuilder row, String value) {
        if (value != null) {
            row.append('"').append(value.replace("\"", "\"\"")).append('"');
        }
    }

    /**
     * The change log's rows, then the one UPDATE; a RUC listed twice takes its last line's values. A record whose
     * {@code tipo} or {@code ciiu} changes gets a {@code changed} row ({@code {tipo: {from, to}, ciiu: {from, to}}},
     * the fields that differ) and the run's time as its new {@code actualizado}, which is the row's {@code at}. The
     * first load of the extended padrón records nothing: it fills both fields of every record, and the log of those
     * fields starts from it, as the registry's starts from its first load (contract §11).
     */
    private static void apply(Handle handle, StageRows rows, Instant now, long runId, StepContribution contribution,
                              Progress progress) {
        progress.enter(Progress.Phase.INDEX);
        rows.index();
        rows.keepLastLines();
        progress.enter(Progress.Phase.PUBLISH);
        boolean first = !rows.loadedBefore();
        long logged = first ? 0 : rows.logChanges(ChangeLog.changes(List.of(
                new ChangeLog.Field("tipo", "r.tipo", "s.tipo"),
                new ChangeLog.Field("ciiu", "r.ciiu", "s.ciiu"))), runId, now);
        long announced = logged == 0 ? 0 : WatchedChanges.announce(handle, runId, now);
        if (!first) {
            // Every record the update changes is in the log under runId: instances drop only those answers.
            handle.execute(RegistryChanges.loggedBy(runId));
        }
        int updated = rows.update(now);
        contribution.incrementWriteCount(updated);
        StageRows.Matches matches = rows.matches();
        if (first) {
            DatasetLoads.record(handle, "padron-extendido", matches.matched(), now);
        } else {
            DatasetLoads.recordChanges(handle, "padron-extendido", matches.matched(), now, 0, updated, 0);
        }
        contribution.getStepExecution().getExecutionContext().putLong("rucsNotInRegistry", matches.unknown());
        LOG.info("padron-extendido: {} RUCs of the registry found in the file, {} changed ({}); {} RUCs not in the "
                        + "registry left out", matches.matched(), updated,
                first ? "its first load: nothing recorded in the change log"
                        : logged + " rows in the change log, " + announced + " ruc.changed events",
                matches.unknown());
    }

    /** The staging table's SQL, in the step's transaction; the table goes with it. */
    interface StageRows {
        /** How many of the file's distinct RUCs the registry holds, and how many it does not. */
        record Matches(long matched, long unknown) {
        }

        @SqlUpdate("""
                create temporary table padron_extendido_stage (line bigint not null, ruc char(11) not null,
                    tipo text, ciiu text) on commit drop""")
        void create();

        @SqlScript("create index on padron_extendido_stage (ruc, line)")
        @SqlScript("analyze padron_extendido_stage")
        void index();

        /** Each RUC's last line, once, for the change log and the update to read. */
        @SqlScript("""
                create temporary table padron_extendido_latest on commit drop as
                select distinct on (ruc) ruc, tipo, ciiu from padron_extendido_stage order by ruc, line desc""")
        @SqlScript("alter table padron_extendido_latest add primary key (ruc)")
        @SqlScript("analyze padron_extendido_latest")
        void keepLastLines();

        @SqlQuery("select exists (select 1 from dataset_loads where dataset = 'padron-extendido')")
        boolean loadedBefore();

        /** Read before the update, while the values it replaces are still there. */
        @SqlUpdate("insert into " + ChangeLog.TABLE + " (ruc, kind, changes, load_run_id, at)"
                + " select r.ruc, 'changed', <changes>, :runId, :now"
                + "   from ruc_registry r join padron_extendido_latest s on s.ruc = r.ruc"
                + "  where (r.tipo, r.ciiu) is distinct from (s.tipo, s.ciiu)"
                + "  order by r.ruc")
        long logChanges(@Define("changes") String changes, long runId, Instant now);

        @SqlUpdate("""
                update ruc_registry r set tipo = s.tipo, ciiu = s.ciiu, actualizado = :now
                  from padron_extendido_latest s
                 where r.ruc = s.ruc and (r.tipo, r.ciiu) is distinct from (s.tipo, s.ciiu)""")
        int update(Instant now);

        @SqlQuery("""
                select count(*) filter (where exists (select 1 from ruc_registry r where r.ruc = s.ruc)) as matched,
                       count(*) filter (where not exists (select 1 from ruc_registry r where r.ruc = s.ruc)) as unknown
                  from padron_extendido_latest s""")
        @RegisterConstructorMapper(Matches.class)
        Matches matches();
    }
}
