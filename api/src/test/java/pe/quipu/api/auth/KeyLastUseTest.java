package pe.quipu.api.auth;

import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import pe.quipu.api.support.MutableClock;
import pe.quipu.api.support.TestQuipu;
import pe.quipu.core.keys.Scope;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import pe.quipu.api.lifecycle.Periodic;
import java.time.Instant;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** The batched lastUsedAt writer, on the test database, outside the app's own schedule. */
class KeyLastUseTest {

    private final TestQuipu quipu = TestQuipu.get();
    private final MutableClock clock = new MutableClock(TestQuipu.START.plus(Duration.ofDays(3)));
    private final KeyLastUse lastUse = new KeyLastUse(Jdbi.create(quipu::connection), clock);
    /** As the application schedules it: every hour here, so only the stop writes. */
    private final Periodic schedule = Periodic.every("test-key-last-use", Duration.ofHours(1), Duration.ofHours(1),
            lastUse::flush).alsoOnStop();

    @Test
    void stopping_writes_what_was_noted_in_one_batch() throws Exception {
        UUID a = keyId(quipu.newKey(Scope.RUC_READ));
        UUID b = keyId(quipu.newKey(Scope.RUC_READ));
        schedule.start();
        lastUse.record(a);
        clock.advance(Duration.ofSeconds(7));
        lastUse.record(b);
        assertThat(lastUsedAt(a)).isNull(); // nothing is written per use

        schedule.stop();

        assertThat(lastUsedAt(a)).isEqualTo(clock.instant().minusSeconds(7));
        assertThat(lastUsedAt(b)).isEqualTo(clock.instant());
        assertThat(lastUse.flush()).isZero(); // nothing left over
    }

    @Test
    void a_write_never_moves_last_use_back() throws Exception {
        UUID key = keyId(quipu.newKey(Scope.RUC_READ));
        Instant recent = clock.instant();
        lastUse.record(key);
        assertThat(lastUse.flush()).isEqualTo(1);

        // Another instance noted an earlier use and writes it later.
        clock.advance(Duration.ofMinutes(-5));
        lastUse.record(key);
        lastUse.flush();

        assertThat(lastUsedAt(key)).isEqualTo(recent);
    }

    private UUID keyId(String secret) throws SQLException {
        try (Connection c = quipu.connection();
             PreparedStatement q = c.prepareStatement("select id from api_keys where prefix = ?")) {
            q.setString(1, secret.substring(0, 14));
            try (ResultSet rs = q.executeQuery()) {
                rs.next();
                return rs.getObject(1, UUID.class);
            }
        }
    }

    private Instant lastUsedAt(UUID id) throws SQLException {
        try (Connection c = quipu.connection();
             PreparedStatement q = c.prepareStatement("select last_used_at from api_keys where id = ?")) {
            q.setObject(1, id);
            try (ResultSet rs = q.executeQuery()) {
                rs.next();
                Timestamp at = rs.getTimestamp(1);
                return at == null ? null : at.toInstant();
            }
        }
    }
}
