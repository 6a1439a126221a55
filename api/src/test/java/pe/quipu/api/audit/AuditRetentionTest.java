package pe.quipu.api.audit;

import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import pe.quipu.api.support.MutableClock;
import pe.quipu.api.support.TestQuipu;
import pe.quipu.core.audit.AuditLog;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.Period;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** The audit log keeps 12 months: the daily pruning, run by hand with its clock moved. */
class AuditRetentionTest {

    private final TestQuipu quipu = TestQuipu.get();

    @Test
    void rows_older_than_12_months_are_deleted_and_younger_ones_stay() throws Exception {
        UUID account = UUID.randomUUID();
        insert(account, "thirteen months", monthsBefore(TestQuipu.START, 13));
        insert(account, "eleven months", monthsBefore(TestQuipu.START, 11));
        insert(account, "today", TestQuipu.START);
        MutableClock clock = new MutableClock(TestQuipu.START);
        AuditRetention retention = new AuditRetention(Jdbi.create(quipu::connection), new AuditLog(clock, quipu.json));

        assertThat(retention.prune()).isGreaterThanOrEqualTo(1);
        assertThat(actions(account)).containsExactly("eleven months", "today");

        // Two months on, the row that was eleven months old is thirteen.
        clock.set(TestQuipu.START.atOffset(ZoneOffset.UTC).plusMonths(2).toInstant());
        retention.prune();
        assertThat(actions(account)).containsExactly("today");
    }

    private static Instant monthsBefore(Instant instant, int months) {
        return instant.atOffset(ZoneOffset.UTC).minus(Period.ofMonths(months)).toInstant();
    }

    private void insert(UUID account, String action, Instant at) throws Exception {
        try (Connection c = quipu.connection();
             PreparedStatement q = c.prepareStatement("insert into audit_log (account_id, at, action) values (?, ?, ?)")) {
            q.setObject(1, account);
            q.setTimestamp(2, Timestamp.from(at));
            q.setString(3, action);
            q.executeUpdate();
        }
    }

    private List<String> actions(UUID account) {
        return quipu.texts("select action from audit_log where account_id = ? order by at", account);
    }
}
