package pe.quipu.api.accounts;

import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import pe.quipu.core.testing.MutableClock;
import pe.quipu.core.testing.TestDatabase;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The denylist as one instance keeps it, on the test database and a clock moved by hand: read whole at start, then
 * one row at a time, each entry with its expiry, expired ones dropped from memory.
 */
class TokenDenylistTest {

    private static final Instant NOW = Instant.parse("2026-10-07T15:00:00Z");

    private final TestDatabase database = TestDatabase.get();
    private final Jdbi jdbi = database.jdbi();
    private final MutableClock clock = new MutableClock(NOW);
    /** Values of this test's rows, unique to it. */
    private final String tag = "t-" + UUID.randomUUID() + "-";

    @AfterEach
    void deleteRows() {
        jdbi.useHandle(h -> h.execute("delete from token_denylist where value like ?", tag + "%"));
    }

    @Test
    void start_reads_the_unexpired_rows_with_their_expiry_and_nothing_else_is_read_for_a_check() {
        insert("jti", tag + "live", NOW.plusSeconds(600));
        insert("sid", tag + "session", NOW.plusSeconds(60));
        insert("jti", tag + "expired", NOW.minusSeconds(1));
        TokenDenylist denylist = new TokenDenylist(jdbi, clock);

        denylist.start();
        long read = denylist.rowsRead();

        assertThat(denylist.deniesToken(tag + "live")).isTrue();
        assertThat(denylist.deniesSession(tag + "session")).isTrue();
        assertThat(denylist.deniesToken(tag + "expired")).isFalse();
        assertThat(denylist.deniesSession(tag + "live")).as("a jti is not a sid").isFalse();
        assertThat(denylist.rowsRead()).isEqualTo(read);
    }

    @Test
    void a_notified_row_is_refused_at_once_and_read_alone() {
        TokenDenylist denylist = started();
        long before = denylist.rowsRead();
        insert("jti", tag + "new", NOW.plusSeconds(300));

        denylist.onNotification("jti:" + tag + "new");

        assertThat(denylist.deniesToken(tag + "new")).isTrue();
        assertThat(denylist.rowsRead() - before).isEqualTo(1);
        // It expires with its row.
        clock.advance(Duration.ofSeconds(300));
        denylist.onNotification("jti:" + tag + "other");
        assertThat(denylist.deniesToken(tag + "new")).isFalse();
    }

    @Test
    void a_row_this_instance_wrote_is_refused_without_reading_anything() {
        TokenDenylist denylist = started();
        long before = denylist.rowsRead();
        SessionRows.Denial row = jdbi.withHandle(h -> h.attach(SessionRows.class)
                .deny("sid", tag + "mine", NOW.plusSeconds(960)));

        denylist.deny(row);

        assertThat(denylist.deniesSession(tag + "mine")).isTrue();
        assertThat(denylist.rowsRead()).isEqualTo(before);
    }

    @Test
    void entries_past_their_expiry_leave_memory_at_the_next_change_a_minute_on() {
        TokenDenylist denylist = started();
        int before = denylist.size();
        for (int i = 0; i < 100; i++) {
            denylist.deny(new SessionRows.Denial("jti:" + tag + i, NOW.plusSeconds(30)));
        }
        assertThat(denylist.size()).isEqualTo(before + 100);

        clock.advance(Duration.ofSeconds(30));
        // Expired (their JWTs fail on exp by now), but held until a sweep is due.
        denylist.deny(new SessionRows.Denial("jti:" + tag + "later", NOW.plusSeconds(3600)));
        assertThat(denylist.deniesToken(tag + "0")).isTrue();
        clock.advance(TokenDenylist.SWEEP_EVERY);
        denylist.deny(new SessionRows.Denial("jti:" + tag + "later-still", NOW.plusSeconds(3600)));

        assertThat(denylist.deniesToken(tag + "0")).isFalse();
        assertThat(denylist.deniesToken(tag + "later")).isTrue();
        assertThat(denylist.size()).isLessThanOrEqualTo(before + 2);
    }

    @Test
    void a_notification_whose_row_is_gone_leaves_nothing_and_one_that_names_no_row_rereads_the_list() {
        TokenDenylist denylist = started();
        denylist.onNotification("sid:" + tag + "gone");
        assertThat(denylist.deniesSession(tag + "gone")).isFalse();

        insert("jti", tag + "unannounced", NOW.plusSeconds(60));
        denylist.onNotification("");
        assertThat(denylist.deniesToken(tag + "unannounced")).isTrue();
    }

    @Test
    void a_later_expiry_is_kept_and_announced_an_earlier_one_changes_nothing() throws Exception {
        TokenDenylist denylist = started();
        try (Connection listener = database.connection(); Statement s = listener.createStatement()) {
            s.execute("listen " + TokenDenylist.CHANNEL);
            SessionRows.Denial first = deny("sid", tag + "s", NOW.plusSeconds(60));
            SessionRows.Denial later = deny("sid", tag + "s", NOW.plusSeconds(600));
            SessionRows.Denial earlier = deny("sid", tag + "s", NOW.plusSeconds(30));

            assertThat(first.expiresAt()).isEqualTo(NOW.plusSeconds(60));
            assertThat(later.expiresAt()).isEqualTo(NOW.plusSeconds(600));
            assertThat(earlier.expiresAt()).as("the row keeps its later expiry").isEqualTo(NOW.plusSeconds(600));
            assertThat(payloads(listener, 2)).filteredOn(p -> p.contains(tag))
                    .containsExactly("sid:" + tag + "s", "sid:" + tag + "s");
        }
        // An instance that heard of the row before its extension learns the later expiry from the second notice.
        denylist.onNotification("sid:" + tag + "s");
        clock.advance(Duration.ofSeconds(120));
        denylist.onNotification("sid:" + tag + "s");
        assertThat(denylist.deniesSession(tag + "s")).isTrue();
    }

    private TokenDenylist started() {
        TokenDenylist denylist = new TokenDenylist(jdbi, clock);
        denylist.start();
        return denylist;
    }

    private SessionRows.Denial deny(String kind, String value, Instant until) {
        return jdbi.withHandle(h -> h.attach(SessionRows.class).deny(kind, value, until));
    }

    private void insert(String kind, String value, Instant until) {
        deny(kind, value, until);
    }

    /** The payloads heard, waiting up to 10 s for {@code count} of them and half a second more for any other. */
    private static List<String> payloads(Connection listener, int count) throws Exception {
        List<String> payloads = new ArrayList<>();
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (System.nanoTime() < deadline) {
            PGNotification[] notifications = listener.unwrap(PGConnection.class).getNotifications(500);
            if (notifications != null) {
                for (PGNotification n : notifications) {
                    payloads.add(n.getParameter());
                }
            } else if (payloads.size() >= count) {
                break;
            }
        }
        return payloads;
    }
}
