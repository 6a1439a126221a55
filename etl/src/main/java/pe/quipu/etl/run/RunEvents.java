package pe.quipu.etl.run;

import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.JdbiException;
import org.springframework.batch.core.BatchStatus;
import org.springframework.batch.core.job.JobExecution;
import org.springframework.batch.core.listener.JobExecutionListener;
import org.springframework.batch.core.step.StepExecution;
import pe.quipu.core.events.EventOutbox;

import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Announces every run in the outbox: {@code etl.run.started} before it, then exactly one of
 * {@code etl.run.succeeded}, {@code etl.run.failed}, {@code etl.run.canceled}, with
 * {@code {runId, job, startedAt, finishedAt, rowsRead, rowsWritten, rowsRejected, error}} (contract §1). Each
 * event commits on its own, outside the run's steps, so that it stays whatever becomes of the run.
 */
public final class RunEvents implements JobExecutionListener {

    private final Jdbi jdbi;
    private final EventOutbox outbox;
    private final Consumer<JobExecution> onStart;

    /** @param onStart told of the live execution as it starts, so that SIGTERM can stop it */
    public RunEvents(Jdbi jdbi, EventOutbox outbox, Consumer<JobExecution> onStart) {
        this.jdbi = jdbi;
        this.outbox = outbox;
        this.onStart = onStart;
    }

    @Override
    public void beforeJob(JobExecution execution) {
        onStart.accept(execution);
        append("etl.run.started", data(execution, RunCounts.none(), null, null));
    }

    @Override
    public void afterJob(JobExecution execution) {
        RunCounts counts = RunCounts.of(execution);
        String type = switch (execution.getStatus()) {
            case COMPLETED -> "etl.run.succeeded";
            case STOPPED, STOPPING -> "etl.run.canceled";
            default -> "etl.run.failed";
        };
        String error = execution.getStatus() == BatchStatus.COMPLETED ? null : RunCounts.error(execution);
        append(type, data(execution, counts, instant(execution.getEndTime()), error));
    }

    /** A run whose process died before it ended: recorded as failed, as no terminal event was ever sent. */
    public void abandoned(long runId, String job, Instant startedAt, Instant noticedAt) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("runId", runId);
        data.put("job", job);
        data.put("startedAt", startedAt);
        data.put("finishedAt", noticedAt);
        data.put("rowsRead", null);
        data.put("rowsWritten", null);
        data.put("rowsRejected", null);
        data.put("error", "the process running it ended before it finished (killed or crashed)");
        append("etl.run.failed", data);
    }

    private static Map<String, Object> data(JobExecution execution, RunCounts counts, Instant finishedAt, String error) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("runId", execution.getId());
        data.put("job", execution.getJobInstance().getJobName());
        data.put("startedAt", instant(execution.getStartTime() != null ? execution.getStartTime() : execution.getCreateTime()));
        data.put("finishedAt", finishedAt);
        data.put("rowsRead", counts.known() ? counts.read() : null);
        data.put("rowsWritten", counts.known() ? counts.written() : null);
        data.put("rowsRejected", counts.known() ? counts.rejected() : null);
        data.put("error", error);
        return data;
    }

    /** A failure's message as an operator reads it: a database error in its own words, not in Jdbi's wrapping. */
    public static String messageOf(Throwable failure) {
        Throwable shown = failure instanceof JdbiException && failure.getCause() instanceof SQLException
                ? failure.getCause() : failure;
        return shown.getMessage();
    }

    /**
     * The failure that says why a run failed: the job's own first (a job that sums up its steps' failures adds one),
     * then each step's in the order the steps ran; null when there is none. JobExecution.getAllFailureExceptions
     * collects them in a HashSet, whose order changes from one run to the next.
     */
    public static Throwable firstFailure(JobExecution execution) {
        if (!execution.getFailureExceptions().isEmpty()) {
            return execution.getFailureExceptions().getFirst();
        }
        return execution.getStepExecutions().stream().flatMap(step -> step.getFailureExceptions().stream())
                .findFirst().orElse(null);
    }

    /** Spring Batch keeps local date-times in the JVM's zone. */
    static Instant instant(LocalDateTime time) {
        return time == null ? null : time.atZone(ZoneId.systemDefault()).toInstant();
    }

    private void append(String type, Map<String, Object> data) {
        try {
            jdbi.useHandle(handle -> outbox.append(handle, type, null, data));
        } catch (JdbiException e) {
            throw new IllegalStateException("could not record " + type, e);
        }
    }

    /** Rows read, written and rejected over the run's steps. */
    public record RunCounts(boolean known, long read, long written, long rejected) {
        static RunCounts none() {
            return new RunCounts(false, 0, 0, 0);
        }

        public static RunCounts of(JobExecution execution) {
            long read = 0;
            long written = 0;
            long rejected = 0;
            for (StepExecution step : execution.getStepExecutions()) {
                read += step.getReadCount();
                written += step.getWriteCount();
                rejected += step.getFilterCount() + step.getReadSkipCount() + step.getProcessSkipCount()
                        + step.getWriteSkipCount();
            }
            return new RunCounts(true, read, written, rejected);
        }

        static String error(JobExecution execution) {
            Throwable t = firstFailure(execution);
            if (t != null) {
                return messageOf(t) != null ? messageOf(t) : t.getClass().getSimpleName();
            }
            String exit = execution.getExitStatus().getExitDescription();
            return exit == null || exit.isBlank() ? execution.getStatus().name().toLowerCase() : exit;
        }
    }
}
