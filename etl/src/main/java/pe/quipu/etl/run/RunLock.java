package pe.quipu.etl.run;

import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlScript;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.List;

/**
 * A PostgreSQL advisory lock held by a run for its whole life, on a connection of its own: it ends with the
 * process, however the process ends, or when the run closes it. Holding it proves that no other live run writes the
 * same data, so any run of the job still marked as running in the job repository is one whose process died.
 */
public final class RunLock implements AutoCloseable {

    private final Handle handle;

    private RunLock(Handle handle) {
        this.handle = handle;
    }

    /** The lock, or null when another live run holds it. */
    public static RunLock tryAcquire(Jdbi jdbi, String name) {
        Handle handle = jdbi.open();
        try {
            if (handle.attach(LockRows.class).tryLock("quipu-etl:" + name)) {
                return new RunLock(handle);
            }
        } catch (RuntimeException e) {
            handle.close();
            throw e;
        }
        handle.close();
        return null;
    }

    /**
     * Marks the job's runs left "running" by a dead process as failed, and announces each with
     * {@code etl.run.failed}, since they never sent a terminal event.
     */
    public void failOrphanedRuns(String jobName, RunEvents events, Instant now) {
        LockRows rows = handle.attach(LockRows.class);
        // Spring Batch keeps local date-times in the JVM's zone.
        LocalDateTime at = LocalDateTime.ofInstant(now, ZoneId.systemDefault());
        for (LockRows.Orphan orphan : rows.failRunning(jobName, at)) {
            rows.failSteps(orphan.id(), at);
            events.abandoned(orphan.id(), jobName, orphan.startedAt().atZone(ZoneId.systemDefault()).toInstant(), now);
        }
    }

    /** Releases the lock, then its connection (which a pool may keep: the lock must not go with it). */
    @Override
    public void close() {
        try {
            handle.attach(LockRows.class).unlockAll();
        } finally {
            handle.close();
        }
    }

    interface LockRows {
        /** A run of the job left "running" by a dead process. */
        record Orphan(long id, LocalDateTime startedAt) {
        }

        @SqlQuery("select pg_try_advisory_lock(hashtext(:name))")
        boolean tryLock(String name);

        @SqlScript("select pg_advisory_unlock_all()")
        void unlockAll();

        @SqlQuery("""
                update batch_job_execution e
                   set status = 'FAILED', exit_code = 'FAILED', end_time = :at, last_updated = :at,
                       exit_message = 'The process running it ended before it finished (killed or crashed).'
                  from batch_job_instance i
                 where i.job_instance_id = e.job_instance_id and i.job_name = :jobName
                   and e.status in ('STARTING', 'STARTED', 'STOPPING')
                returning e.job_execution_id as id, coalesce(e.start_time, e.create_time) as started_at""")
        @RegisterConstructorMapper(Orphan.class)
        List<Orphan> failRunning(String jobName, LocalDateTime at);

        @SqlUpdate("""
                update batch_step_execution set status = 'FAILED', exit_code = 'FAILED', end_time = :at
                 where job_execution_id = :id and status in ('STARTING', 'STARTED', 'STOPPING')""")
        void failSteps(long id, LocalDateTime at);
    }
}
