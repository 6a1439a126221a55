package pe.quipu.api.audit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.core.testing.MutableClock;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.Period;
import java.time.ZoneOffset;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** The audit log keeps 12 months: the daily pruning, run by hand with its clock moved. */
class AuditRetentionTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    @Test
    void rows_older_than_12_months_are_deleted_and_younger_ones_stay() throws Exception {
        UUID account = UUID.randomUUID();
        insert(account, "thirteen months", monthsBefore(QuipuExtension.START, 13));
        insert(account, "eleven months", monthsBefore(QuipuExtension.START, 11));
        insert(account, "today", QuipuExtension.START);
        MutableClock clock = new MutableClock(QuipuExtension.START);
        AuditRetention retention = new AuditRetention(quipu.database.jdbi(), new AuditLog(clock, quipu.json));

        assertThat(retention.prune()).isGreaterThanOrEqualTo(1);
        assertThat(actions(account)).containsExactly("eleven months", "today");

        // Two months on, the row that was eleven months old is thirteen.
        clock.set(QuipuExtension.START.atOffset(ZoneOffset.UTC).plusMonths(2).toInstant());
        retention.prune();
        assertThat(actions(account)).containsExactly("today");
    }

    private static Instant monthsBefore(Instant instant, int months) {
        return instant.atOffset(ZoneOffset.UTC).minus(Period.ofMonths(months)).toInstant();
    }

    private void insert(UUID account, String action, Instant at) throws Exception {
        try (Connection c = quipu.database.connection();
             PreparedStatement q = c.prepareStatement("insert into audit_log (account_id, at, action) values (?, ?, ?)")) {
            q.setObject(1, account);
            q.setTimestamp(2, Timestamp.from(at));
            q.setString(3, action);
            q.executeUpdate();
        }
    }

    private List<String> actions(UUID account) {
        return quipu.database.texts("select action from audit_log where account_id = ? order by at", account);
    }
}
