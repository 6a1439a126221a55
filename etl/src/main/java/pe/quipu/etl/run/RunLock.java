package pe.quipu.etl.run;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;

/**
 * A PostgreSQL advisory lock held by a run for its whole life, on a connection of its own: it ends with the
 * process, however the process ends. Holding it proves that no other live run writes the same data, so any
 * run of the job still marked as running in the job repository is one whose process died.
 */
public final class RunLock implements AutoCloseable {

    private final Connection connection;

    private RunLock(Connection connection) {
        this.connection = connection;
    }

    /** The lock, or null when another live run holds it. */
    public static RunLock tryAcquire(DataSource dataSource, String name) throws SQLException {
        Connection connection = dataSource.getConnection();
        try (PreparedStatement lock = connection.prepareStatement("select pg_try_advisory_lock(hashtext(?))")) {
            lock.setString(1, "quipu-etl:" + name);
            try (ResultSet rs = lock.executeQuery()) {
                rs.next();
                if (rs.getBoolean(1)) {
                    return new RunLock(connection);
                }
            }
        } catch (SQLException e) {
            connection.close();
            throw e;
        }
        connection.close();
        return null;
    }

    /**
     * Marks the job's runs left "running" by a dead process as failed, and announces each with
     * {@code etl.run.failed}, since they never sent a terminal event.
     */
    public void failOrphanedRuns(String jobName, RunEvents events, Instant now) throws SQLException {
        record Orphan(long id, Instant startedAt) {
        }
        List<Orphan> orphans = new ArrayList<>();
        try (PreparedStatement update = connection.prepareStatement("""
                update batch_job_execution e
                   set status = 'FAILED', exit_code = 'FAILED', end_time = ?, last_updated = ?,
                       exit_message = 'The process running it ended before it finished (killed or crashed).'
                  from batch_job_instance i
                 where i.job_instance_id = e.job_instance_id and i.job_name = ?
                   and e.status in ('STARTING', 'STARTED', 'STOPPING')
                returning e.job_execution_id, coalesce(e.start_time, e.create_time)""")) {
            Timestamp at = Timestamp.valueOf(LocalDateTime.ofInstant(now, ZoneId.systemDefault()));
            update.setTimestamp(1, at);
            update.setTimestamp(2, at);
            update.setString(3, jobName);
            try (ResultSet rs = update.executeQuery()) {
                while (rs.next()) {
                    orphans.add(new Orphan(rs.getLong(1),
                            rs.getTimestamp(2).toLocalDateTime().atZone(ZoneId.systemDefault()).toInstant()));
                }
            }
        }
        try (PreparedStatement steps = connection.prepareStatement("""
                update batch_step_execution set status = 'FAILED', exit_code = 'FAILED', end_time = ?
                 where job_execution_id = ? and status in ('STARTING', 'STARTED', 'STOPPING')""")) {
            for (Orphan orphan : orphans) {
                steps.setTimestamp(1, Timestamp.valueOf(LocalDateTime.ofInstant(now, ZoneId.systemDefault())));
                steps.setLong(2, orphan.id());
                steps.executeUpdate();
                events.abandoned(orphan.id(), jobName, orphan.startedAt(), now);
            }
        }
    }

    @Override
    public void close() throws SQLException {
        connection.close();
    }
}
