package pe.quipu.api.keys;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.platform.Periodic;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.core.testing.MutableClock;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** The batched lastUsedAt writer, on the test database, outside the app's own schedule. */
class KeyLastUseTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    private final MutableClock clock = new MutableClock(QuipuExtension.START.plus(Duration.ofDays(3)));
    private final KeyLastUse lastUse = new KeyLastUse(quipu.database.jdbi(), clock);
    /** As the application schedules it: every hour here, so only the stop writes. */
    private final Periodic schedule = Periodic.every("test-key-last-use", Duration.ofHours(1), Duration.ofHours(1),
            lastUse::flush).alsoOnStop();

    @Test
    void stopping_writes_what_was_noted_in_one_batch() throws Exception {
        UUID a = keyId(quipu.accounts.newKey(Scope.RUC_READ));
        UUID b = keyId(quipu.accounts.newKey(Scope.RUC_READ));
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
        UUID key = keyId(quipu.accounts.newKey(Scope.RUC_READ));
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
        try (Connection c = quipu.database.connection();
             PreparedStatement q = c.prepareStatement("select id from api_keys where prefix = ?")) {
            q.setString(1, secret.substring(0, 14));
            try (ResultSet rs = q.executeQuery()) {
                rs.next();
                return rs.getObject(1, UUID.class);
            }
        }
    }

    private Instant lastUsedAt(UUID id) throws SQLException {
        try (Connection c = quipu.database.connection();
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
