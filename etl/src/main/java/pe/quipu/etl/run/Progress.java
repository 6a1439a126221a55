package pe.quipu.etl.run;

import org.springframework.batch.core.BatchStatus;
import org.springframework.batch.core.ExitStatus;
import org.springframework.batch.core.listener.StepExecutionListener;
import org.springframework.batch.core.step.StepExecution;

import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * What a run is doing now: its phase and that phase's measures, written by the job as it works and read by the
 * {@link ProgressReporter} every so often. A job enters each phase it has ({@link #enter}); the phase ends when the
 * next one begins or when its step ends (this is each step's listener), and its last line ({@link ProgressLine#ended})
 * goes to the reporter. Between phases (a step's checks, Spring Batch's own bookkeeping) there is nothing to report.
 *
 * <p>The measures are written by whichever thread does the work (the padrón's parser, the download) and read by the
 * reporter's: each is an {@link AtomicLong} written with {@code lazySet}, which costs a reading thread a fresh value
 * and the writing one nothing per line.
 */
public final class Progress implements StepExecutionListener {

    /** A run's phases, in the order a job goes through those it has. */
    public enum Phase {
        /** {@code --url}: the file is downloaded (bytes of its Content-Length, when the server gives one). */
        DOWNLOAD,
        /** The file is read, parsed and copied into a staging table (bytes of the file, lines, rejects). */
        STAGE,
        /** The staged rows are compared with the data in service, inside PostgreSQL. */
        COMPARE,
        /** The data in service is replaced or changed, and the change log written, inside PostgreSQL. */
        PUBLISH,
        /** A new table's indexes are built and its statistics gathered, inside PostgreSQL. */
        INDEX;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private final String job;
    private final LongSupplier nanos;
    private volatile Consumer<String> ended = line -> {
    };
    private volatile Current current;
    /** Phases begun so far. */
    private int begun;

    /**
     * @param job   the job's name, which starts every line
     * @param nanos a monotonic time in nanoseconds ({@code System::nanoTime}; a test's own ticker)
     */
    public Progress(String job, LongSupplier nanos) {
        this.job = job;
        this.nanos = nanos;
    }

    /** A progress nobody reads: for reading a file outside a run (the generators). */
    public static Progress none() {
        return new Progress("", System::nanoTime);
    }

    /** Where the last line of each phase goes (nowhere until told). */
    public void onPhaseEnded(Consumer<String> ended) {
        this.ended = ended;
    }

    /** Ends the phase under way, if any, as done, and begins {@code phase} with nothing measured yet. */
    public synchronized void enter(Phase phase) {
        end(true);
        current = new Current(phase, ++begun, nanos.getAsLong());
    }

    /** Ends the phase under way, if any: {@code done}, or stopped (its step failed or was canceled). */
    public synchronized void end(boolean done) {
        Current ending = current;
        if (ending != null) {
            current = null;
            ended.accept(ProgressLine.ended(ending.snapshot(job, nanos.getAsLong()), done));
        }
    }

    /** The size of what this phase reads, when known ({@link ProgressLine#NONE} otherwise). */
    public void totalBytes(long total) {
        Current c = current;
        if (c != null) {
            c.totalBytes.lazySet(total);
        }
    }

    /** Bytes read (or downloaded) so far in this phase. */
    public void bytes(long read) {
        Current c = current;
        if (c != null) {
            c.bytes.lazySet(read);
        }
    }

    /** Data lines read so far in this phase, and how many of them were rejected. */
    public void lines(long read, long rejected) {
        Current c = current;
        if (c != null) {
            c.lines.lazySet(read);
            c.rejected.lazySet(rejected);
        }
    }

    /** A count of {@code noun} this phase works on, of {@code total} in all when known ({@link ProgressLine#NONE}). */
    public void items(long done, long total, String noun) {
        Current c = current;
        if (c != null) {
            c.noun = noun;
            c.itemsTotal.lazySet(total);
            c.items.lazySet(done);
        }
    }

    /** The phase under way and what it has done so far; empty between phases. */
    public Optional<ProgressLine.Snapshot> snapshot() {
        Current c = current;
        return c == null ? Optional.empty() : Optional.of(c.snapshot(job, nanos.getAsLong()));
    }

    /** A step's end ends its last phase: done when the step completed, else stopped. */
    @Override
    public ExitStatus afterStep(StepExecution step) {
        end(step.getStatus() == BatchStatus.COMPLETED);
        return null;
    }

    private static final class Current {
        final Phase phase;
        final int ordinal;
        final long started;
        final AtomicLong bytes = new AtomicLong(ProgressLine.NONE);
        final AtomicLong totalBytes = new AtomicLong(ProgressLine.NONE);
        final AtomicLong lines = new AtomicLong(ProgressLine.NONE);
        final AtomicLong rejected = new AtomicLong(ProgressLine.NONE);
        final AtomicLong items = new AtomicLong(ProgressLine.NONE);
        final AtomicLong itemsTotal = new AtomicLong(ProgressLine.NONE);
        volatile String noun = "";

        Current(Phase phase, int ordinal, long started) {
            this.phase = phase;
            this.ordinal = ordinal;
            this.started = started;
        }

        ProgressLine.Snapshot snapshot(String job, long now) {
            return new ProgressLine.Snapshot(job, phase, ordinal, Math.max(0, now - started), bytes.get(),
                    totalBytes.get(), lines.get(), rejected.get(), items.get(), itemsTotal.get(), noun);
        }
    }
}
