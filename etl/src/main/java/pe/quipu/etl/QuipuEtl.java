package pe.quipu.etl;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.management.HotSpotDiagnosticMXBean;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.dropwizard.configuration.ConfigurationException;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.bridge.SLF4JBridgeHandler;
import org.springframework.batch.core.BatchStatus;
import org.springframework.batch.core.job.Job;
import org.springframework.batch.core.job.JobExecution;
import org.springframework.batch.core.job.parameters.JobParameters;
import org.springframework.batch.core.job.parameters.JobParametersBuilder;
import org.springframework.batch.core.launch.JobOperator;
import org.springframework.batch.core.step.StepExecution;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import pe.quipu.core.db.QuipuDatabase;
import pe.quipu.core.db.SchemaMigrations;
import pe.quipu.core.events.EventOutbox;
import pe.quipu.core.fx.BcrpSettings;
import pe.quipu.core.ruc.ChangesSettings;
import pe.quipu.core.fx.SunatFxSettings;
import pe.quipu.core.ruc.SearchSettings;
import pe.quipu.etl.run.EtlSettings;
import pe.quipu.etl.run.JobOptions;
import pe.quipu.etl.run.Progress;
import pe.quipu.etl.run.ProgressReporter;
import pe.quipu.etl.run.RunEvents;
import pe.quipu.etl.run.RunLock;
import pe.quipu.etl.run.TerminalLine;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code java -jar quipu-etl.jar <job> [options] config.yml}, for cron: one run, a one-line summary on
 * standard output, and the exit code: 0 succeeded, 1 failed, 2 wrong command line, 3 canceled,
 * 4 another run holding the same data was in progress. SIGTERM cancels the run (the JVM then exits 143). Its
 * progress goes to standard error ({@link ProgressReporter}): a line every {@code etl.progressEvery}, or one line
 * redrawn in place on a terminal.
 */
public final class QuipuEtl {

    public static final int SUCCEEDED = 0;
    public static final int FAILED = 1;
    public static final int USAGE = 2;
    public static final int CANCELED = 3;
    public static final int BUSY = 4;

    private static final String USAGE_TEXT = """
            usage: ./quipu etl <job> [options] config.yml   (./quipu etl <job> --help: the job's options)
              padron            --file PATH (.zip or .txt) | --url URL    SUNAT padrón reducido -> RUC registry
              padron-extendido  --file PATH | --url URL                   SUNAT PadronRUC CSV -> tipo, ciiu
              ubigeo            [--file PATH] (default: the bundled INEI file)
              tipo-cambio       [--fuente bcrp|sbs|sunat|all] [--from YYYY-MM-DD --to YYYY-MM-DD]
                                (default: every source, the last 10 days)
              agentes-retencion                --file PATH | --url URL    SUNAT AgenRet_TXT.zip -> withholding agents
              buenos-contribuyentes            --file PATH | --url URL    SUNAT BueCont_TXT.zip -> good taxpayers
              agentes-percepcion               --file PATH | --url URL    SUNAT AgenPercVI_TXT.zip -> perception agents
              agentes-percepcion-combustibles  --file PATH | --url URL    SUNAT AgenPerc_TXT.zip -> fuel perception
              locales-anexos                   --file PATH | --url URL    SUNAT padron_reducido_local_anexo.zip -> premises
            exit codes: 0 succeeded, 1 failed, 2 usage, 3 canceled, 4 a run on the same data is in progress""";

    private static final Logger LOG = LoggerFactory.getLogger(QuipuEtl.class);

    private final Clock clock;
    private final PrintStream out;
    private final PrintStream err;
    private final TerminalLine terminal;
    private final AtomicReference<JobExecution> running = new AtomicReference<>();
    private final CountDownLatch finished = new CountDownLatch(1);

    /** A run whose standard error is {@code err}, taken for no terminal ({@code --progress bar} still draws on it). */
    public QuipuEtl(Clock clock, PrintStream out, PrintStream err) {
        this(clock, out, TerminalLine.over(err));
    }

    /** @param terminal standard error, where the progress line is drawn; the run writes all else there through it */
    public QuipuEtl(Clock clock, PrintStream out, TerminalLine terminal) {
        this.clock = clock;
        this.out = out;
        this.terminal = terminal;
        this.err = terminal.stream();
    }

    public static void main(String[] args) {
        // Everything written to standard error (the logs too: Logback's console writes to System.err as it is at each
        // write) first erases the progress line, when one is drawn.
        TerminalLine terminal = TerminalLine.standardError(System.err);
        System.setErr(terminal.stream());
        keepTheHeap();
        SLF4JBridgeHandler.removeHandlersForRootLogger();
        SLF4JBridgeHandler.install();
        AtomicBoolean shuttingDown = new AtomicBoolean();
        QuipuEtl etl = new QuipuEtl(Clock.systemUTC(), System.out, terminal);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            shuttingDown.set(true);
            etl.cancel(Duration.ofMinutes(2));
        }, "quipu-etl-sigterm"));
        int code = etl.run(args);
        if (!shuttingDown.get()) {
            System.exit(code);
        }
    }

    /**
     * A run never gives heap back. A padrón load keeps about 70 MB live (the set of RUCs seen) and allocates fast;
     * the classes loaded at start-up set off one concurrent GC cycle, after which G1 would shrink the committed heap
     * to a few tens of MB, and then start another cycle at nearly every pause: about 500 pauses and 3 s more per
     * load of 5 million lines (bench/padron-load.sh). MaxHeapFreeRatio is a manageable flag, set here rather than on
     * every cron line.
     */
    private static void keepTheHeap() {
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).setVMOption("MaxHeapFreeRatio", "100");
    }

    /** Runs one command to its end and returns the exit code. */
    public int run(String[] args) {
        try {
            Optional<String> help = EtlCommand.help(args);
            if (help.isPresent()) {
                // --help: the job's options, or every job; on standard output, and nothing runs.
                out.print(help.get().isEmpty() ? USAGE_TEXT + System.lineSeparator() : help.get());
                out.flush();
                return SUCCEEDED;
            }
            EtlCommand command;
            try {
                command = EtlCommand.parse(args, clock);
            } catch (EtlCommand.UsageException e) {
                err.println("quipu-etl: " + e.getMessage());
                err.println(USAGE_TEXT);
                return USAGE;
            }
            EtlConfiguration configuration;
            try {
                configuration = EtlConfiguration.read(command.config());
            } catch (ConfigurationException e) {
                err.println("quipu-etl: " + EtlConfiguration.describe(command.config(), e));
                return FAILED;
            }
            String url = command.options().get("url");
            if (url != null && EtlJob.isPlainHttp(url)) {
                if (!configuration.etl().allowHttp(configuration.isProduction())) {
                    // Anyone on the way could hand the run another file: refused like a wrong command line.
                    err.println("quipu-etl: --url " + url + " is plain http://, refused "
                            + (configuration.isProduction() ? "in production" : "by etl.allowHttp: false")
                            + " (anyone on the way could change the file); use https://, or set etl.allowHttp: true"
                            + " (QUIPU_ETL_ALLOW_HTTP=true) to accept it");
                    return USAGE;
                }
                if (configuration.etl().allowHttpUnset()) {
                    LOG.warn("Downloading {} over plain http:// because this is development (QUIPU_ENV unset);"
                            + " production refuses it unless etl.allowHttp is true", url);
                }
            }
            // The database is opened and migrated on a thread of its own while Spring and the job's classes start
            // on this one: each takes a few hundred milliseconds of a run's start, on two processors.
            FutureTask<QuipuDatabase> opening = new FutureTask<>(() -> {
                QuipuDatabase database = QuipuDatabase.open(configuration.database(), "etl");
                try {
                    SchemaMigrations.apply(database);
                    return database;
                } catch (RuntimeException | Error e) {
                    database.close();
                    throw e;
                }
            });
            Thread.ofPlatform().name("quipu-etl-database").daemon().start(opening);
            try {
                return runJob(command, configuration, opening);
            } catch (Exception e) {
                // A failure to open the database surfaces in Spring's words; the run says it in its own.
                throw opening.isDone() && failure(opening) != null ? failure(opening) : e;
            } finally {
                QuipuDatabase database = opened(opening);
                if (database != null) {
                    database.close();
                }
            }
        } catch (Exception e) {
            err.println("quipu-etl: " + RunEvents.messageOf(e));
            return FAILED;
        } finally {
            finished.countDown();
        }
    }

    /** The opened database, waiting for it; null when opening it failed. */
    private static QuipuDatabase opened(FutureTask<QuipuDatabase> opening) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return opening.get();
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    return null;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Why opening the database failed, as an exception to throw; null when it did not. */
    private static Exception failure(FutureTask<QuipuDatabase> opening) {
        try {
            opening.get();
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } catch (ExecutionException e) {
            return e.getCause() instanceof Exception cause ? cause : new IllegalStateException(e.getCause());
        }
    }

    private int runJob(EtlCommand command, EtlConfiguration configuration, FutureTask<QuipuDatabase> opening)
            throws Exception {
        ObjectMapper json = new ObjectMapper().findAndRegisterModules()
                .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);
        try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
            context.registerBean(EtlSettings.class, configuration::etl);
            context.registerBean(BcrpSettings.class, configuration::bcrp);
            context.registerBean(SunatFxSettings.class, configuration::sunatFx);
            context.registerBean(SearchSettings.class, configuration::search);
            context.registerBean(ChangesSettings.class, configuration::changes);
            context.registerBean(QuipuDatabase.class, () -> {
                QuipuDatabase database = opened(opening);
                if (database == null) {
                    throw new IllegalStateException("the database could not be opened");
                }
                return database;
            });
            context.registerBean(Clock.class, () -> clock);
            context.registerBean(ObjectMapper.class, () -> json);
            context.registerBean(EventOutbox.class, () -> new EventOutbox(clock, json));
            context.registerBean(JobOptions.class, () -> new JobOptions(command.options()));
            Progress progress = new Progress(command.job().jobName(), System::nanoTime);
            context.registerBean(Progress.class, () -> progress);
            context.register(BatchInfrastructure.class, command.job().configuration());
            context.registerBean(RunEvents.class, () -> new RunEvents(context.getBean(Jdbi.class),
                    context.getBean(EventOutbox.class), running::set));
            context.refresh();

            RunEvents events = context.getBean(RunEvents.class);
            try (RunLock lock = RunLock.tryAcquire(context.getBean(Jdbi.class), command.job().lock())) {
                if (lock == null) {
                    err.println("quipu-etl: another run that writes the same data (" + command.job().lock()
                            + ") is in progress; try again when it ends");
                    return BUSY;
                }
                lock.failOrphanedRuns(command.job().jobName(), events, clock.instant());
                JobOperator jobOperator = context.getBean(JobOperator.class);
                Job job = context.getBean(command.job().jobName(), Job.class);
                JobExecution execution;
                // Closed before the summary: a terminal's progress line is erased first.
                try (ProgressReporter reporter = ProgressReporter.start(progress, command.progress(),
                        configuration.etl().progressEvery(), terminal)) {
                    execution = jobOperator.start(job, parameters(command));
                }
                return report(command, execution);
            }
        }
    }

    private JobParameters parameters(EtlCommand command) {
        JobParametersBuilder builder = new JobParametersBuilder();
        command.options().forEach(builder::addString);
        // Every invocation is a run of its own: a failed or killed run is simply run again.
        builder.addString("run.at", clock.instant().toString());
        // run.at alone is not unique: two runs may start within the clock's resolution (or a fixed clock).
        builder.addString("run.id", java.util.UUID.randomUUID().toString());
        return builder.toJobParameters();
    }

    private int report(EtlCommand command, JobExecution execution) {
        RunEvents.RunCounts counts = RunEvents.RunCounts.of(execution);
        Duration took = Duration.between(execution.getStartTime(), execution.getEndTime() != null
                ? execution.getEndTime() : java.time.LocalDateTime.now());
        BatchStatus status = execution.getStatus();
        String outcome = switch (status) {
            case COMPLETED -> "succeeded";
            case STOPPED, STOPPING -> "canceled";
            default -> "failed";
        };
        out.printf(Locale.ROOT, "%s %s: read %d, written %d, rejected %d, in %.1f s (run %d)%s%n",
                command.job().jobName(), outcome, counts.read(), counts.written(), counts.rejected(),
                took.toMillis() / 1000.0, execution.getId(),
                status == BatchStatus.COMPLETED ? "" : ": " + errorOf(execution));
        out.flush();
        return switch (status) {
            case COMPLETED -> SUCCEEDED;
            case STOPPED, STOPPING -> CANCELED;
            default -> FAILED;
        };
    }

    private static String errorOf(JobExecution execution) {
        Throwable failure = RunEvents.firstFailure(execution);
        return failure == null ? execution.getExitStatus().getExitDescription() : RunEvents.messageOf(failure);
    }

    /**
     * SIGTERM: asks the running job to stop at its next check, and waits for the run to end. The request is marked
     * on the live execution, where the job's own thread reads it and then records the run as stopped. (JobOperator.stop
     * would also write the step's row from this thread, racing the step's own last write: spring-batch#5484, an
     * optimistic-locking failure that leaves the run "unknown" and the exit code 1 instead of canceled.)
     */
    public void cancel(Duration wait) {
        JobExecution execution = running.get();
        if (execution != null && execution.isRunning()) {
            execution.setStatus(BatchStatus.STOPPING);
            execution.getStepExecutions().forEach(StepExecution::setTerminateOnly);
        }
        try {
            finished.await(wait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
