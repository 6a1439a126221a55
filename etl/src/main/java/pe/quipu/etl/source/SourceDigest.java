package pe.quipu.etl.source;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.batch.core.step.StepExecution;

/**
 * The size and SHA-256 of a source file as a run read it, whole (a zip as published, not its entry): what tells
 * one day's file from another, and what an operator compares with a copy of the file.
 *
 * @param bytes  the file's size
 * @param sha256 its SHA-256, in lowercase hex
 */
public record SourceDigest(long bytes, String sha256) {

    /** The keys in the run's execution context. */
    public static final String BYTES = "source.bytes";
    public static final String SHA256 = "source.sha256";

    private static final Logger LOG = LoggerFactory.getLogger(SourceDigest.class);

    /** Keeps this in the run's record (its job execution's context) and logs it. */
    public void recordIn(StepExecution step) {
        step.getJobExecution().getExecutionContext().putLong(BYTES, bytes);
        step.getJobExecution().getExecutionContext().putString(SHA256, sha256);
        LOG.info("{}: read the file whole: {} bytes, SHA-256 {}", step.getJobExecution().getJobInstance().getJobName(),
                bytes, sha256);
    }
}
