package pe.quipu.etl.run;

import org.springframework.batch.core.BatchStatus;
import org.springframework.batch.core.job.JobInterruptedException;
import org.springframework.batch.core.step.StepExecution;

/**
 * Whether a run was asked to stop (SIGTERM marks the live job execution STOPPING and its running step
 * terminate-only, see QuipuEtl.cancel). Spring Batch itself looks only between tasklet calls, and a
 * load is one long tasklet call, so a job asks here while it works; either sign counts.
 */
public final class Cancellation {

    private Cancellation() {
    }

    public static boolean requested(StepExecution step) {
        return step.isTerminateOnly() || step.getJobExecution().getStatus() == BatchStatus.STOPPING;
    }

    /** Ends the step as stopped (the run ends canceled) when a stop was requested. */
    public static void check(StepExecution step, String where) throws JobInterruptedException {
        if (requested(step)) {
            throw new JobInterruptedException(step.getJobExecution().getJobInstance().getJobName()
                    + ": stopped on request " + where);
        }
    }
}
