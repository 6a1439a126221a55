package pe.quipu.etl.run;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Reports a run's {@link Progress} while it runs, as {@code --progress} says ({@link Mode}): a log line on standard
 * error every {@code etl.progressEvery} (10 s) of each phase, counted from the phase's start (so a phase shorter than
 * that shows only its last line, and the lines of a longer one say {@code elapsed 0:10}, {@code 0:20}…), or, on a
 * terminal, one line redrawn in place every {@value #REDRAW_MILLIS} ms; the last line of each phase is logged either
 * way. Standard output is never written: it holds the run's summary alone.
 */
public final class ProgressReporter implements AutoCloseable {

    /** How often the terminal's line is redrawn. */
    static final long REDRAW_MILLIS = 500;

    private static final Logger LOG = LoggerFactory.getLogger(Progress.class);

    /** {@code --progress}: how a run shows its progress. */
    public enum Mode {
        /** {@link #BAR} when standard error is a terminal, else {@link #LINE}: the default. */
        AUTO,
        /** A log line every {@code etl.progressEvery}, and at the end of each phase. */
        LINE,
        /** One line redrawn in place, and a log line at the end of each phase. */
        BAR,
        /** Nothing. */
        NONE;

        /** The option's value: {@code auto}, {@code line}, {@code bar} or {@code none}. */
        public static Mode of(String value) {
            for (Mode mode : values()) {
                if (mode.name().toLowerCase(Locale.ROOT).equals(value)) {
                    return mode;
                }
            }
            throw new IllegalArgumentException("--progress must be auto, line, bar or none, not " + value);
        }
    }

    private final Progress progress;
    private final Mode mode;
    private final TerminalLine terminal;
    private final Consumer<String> log;
    private final long everyNanos;
    private ScheduledExecutorService timer;
    /** The phase the last report was of ({@link ProgressLine.Snapshot#ordinal}), and when its next line is due. */
    private int phase;
    private long dueNanos;

    /**
     * @param mode     {@link Mode#LINE}, {@link Mode#BAR} or {@link Mode#NONE} ({@link #start} settles
     *                 {@link Mode#AUTO})
     * @param terminal where {@link Mode#BAR} draws
     * @param log      where the log lines go
     * @param every    how often {@link Mode#LINE} logs a line, from the start of each phase
     */
    ProgressReporter(Progress progress, Mode mode, TerminalLine terminal, Consumer<String> log, Duration every) {
        if (mode == Mode.AUTO) {
            throw new IllegalArgumentException("AUTO is settled by start()");
        }
        this.progress = progress;
        this.mode = mode;
        this.terminal = terminal;
        this.log = log;
        this.everyNanos = every.toNanos();
        progress.onPhaseEnded(mode == Mode.NONE ? line -> {
        } : log);
    }

    /**
     * Reports {@code progress} from now until {@link #close}: as {@code mode} asks, {@link Mode#AUTO} being a line on
     * {@code terminal} when it is one; a log line every {@code every} of each phase.
     */
    public static ProgressReporter start(Progress progress, Mode mode, Duration every, TerminalLine terminal) {
        Mode settled = mode != Mode.AUTO ? mode : terminal.isTerminal() ? Mode.BAR : Mode.LINE;
        ProgressReporter reporter = new ProgressReporter(progress, settled, terminal, line -> LOG.info("{}", line),
                every);
        // A log line is due at a whole number of periods into its phase: looked for every half second (or period).
        long period = Math.max(1, Math.min(REDRAW_MILLIS, every.toMillis()));
        if (settled != Mode.NONE) {
            reporter.timer = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform()
                    .name("quipu-etl-progress").daemon().factory());
            reporter.timer.scheduleAtFixedRate(reporter::tick, period, period, TimeUnit.MILLISECONDS);
        }
        return reporter;
    }

    /** The mode it reports in. */
    public Mode mode() {
        return mode;
    }

    /**
     * One look at the phase under way, if any: the terminal's line redrawn, or a log line when one is due (a whole
     * number of periods into the phase, and none logged for that one yet).
     */
    void tick() {
        try {
            progress.snapshot().ifPresent(now -> {
                switch (mode) {
                    case LINE -> {
                        if (now.ordinal() != phase) {
                            phase = now.ordinal();
                            dueNanos = everyNanos;
                        }
                        if (now.elapsedNanos() >= dueNanos) {
                            log.accept(ProgressLine.running(now));
                            // A late look (a busy machine) logs once, and the next line is due at the next period.
                            dueNanos = (now.elapsedNanos() / everyNanos + 1) * everyNanos;
                        }
                    }
                    case BAR -> terminal.show(ProgressLine.terminal(now, terminal.width() - 1));
                    default -> {
                    }
                }
            });
        } catch (RuntimeException e) {
            // A report that fails must not stop the next ones (a scheduled task that throws is never run again).
            LOG.warn("could not report the run's progress", e);
        }
    }

    /**
     * Stops reporting: the phase still under way, if any, ends as stopped (a run whose steps all ended has none), and
     * the terminal's line is erased, so that the summary that follows starts on a line of its own.
     */
    @Override
    public void close() {
        if (timer != null) {
            timer.shutdownNow();
            try {
                timer.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        progress.end(false);
        if (mode == Mode.BAR) {
            terminal.erase();
        }
    }
}
