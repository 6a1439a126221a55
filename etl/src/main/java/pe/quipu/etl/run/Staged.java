package pe.quipu.etl.run;

import org.springframework.batch.core.step.StepContribution;
import org.springframework.batch.core.step.StepExecution;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * What a job's {@value #STEP} step found in its file, and how that step hands it on: the lines read as the step's
 * read count and the rejected ones as its filter count (the run's summary and events), the rest in its execution
 * context, where the publish step reads it back to refuse a file over the rejected share or much smaller than the
 * data in service. The padrón's job and SUNAT's five jobs stage this way.
 *
 * @param read       data lines read
 * @param staged     rows left in the staging table
 * @param malformed  lines rejected as malformed
 * @param duplicates lines superseded by a later line of the same key
 * @param sample     the first rejected lines, for the operator
 */
public record Staged(long read, long staged, long malformed, long duplicates, List<String> sample) {

    /** The name of the step that stages. */
    public static final String STEP = "stage";

    public long rejected() {
        return malformed + duplicates;
    }

    /** Records this in the staging step {@code step} and its {@code contribution}. */
    public void recordIn(StepContribution contribution, StepExecution step) {
        for (long i = 0; i < read; i++) {
            contribution.incrementReadCount();
        }
        contribution.incrementFilterCount(rejected());
        step.getExecutionContext().put("rejected.sample", new ArrayList<>(sample));
        step.getExecutionContext().putLong("rejected.malformed", malformed);
        step.getExecutionContext().putLong("rejected.duplicates", duplicates);
        step.getExecutionContext().putLong("staged", staged);
    }

    /** The staging step of the job that {@code step} belongs to. */
    public static StepExecution stepOf(StepExecution step) {
        return step.getJobExecution().getStepExecutions().stream()
                .filter(s -> s.getStepName().equals(STEP)).findFirst().orElseThrow();
    }

    /** The rows the staging step {@code staging} left in its table. */
    public static long stagedBy(StepExecution staging) {
        return staging.getExecutionContext().getLong("staged");
    }

    /** The rejected lines the staging step {@code staging} kept as a sample (none when it kept none). */
    @SuppressWarnings("unchecked")
    public static List<String> sampleOf(StepExecution staging) {
        List<String> sample = (List<String>) staging.getExecutionContext().get("rejected.sample");
        return sample == null ? List.of() : sample;
    }

    /**
     * Runs {@code staging}; when it fails or is canceled, runs {@code drop} to leave no staging table behind (a
     * killed run's is dropped by the next run) before the failure goes on, with drop's own failure suppressed in it.
     */
    public static <T> T orDrop(Callable<T> staging, Runnable drop) throws Exception {
        try {
            return staging.call();
        } catch (Exception | Error e) {
            try {
                drop.run();
            } catch (RuntimeException cleanup) {
                e.addSuppressed(cleanup);
            }
            throw e;
        }
    }
}
