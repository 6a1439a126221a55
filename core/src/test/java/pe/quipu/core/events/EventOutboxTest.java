package pe.quipu.core.events;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import pe.quipu.core.testing.MutableClock;
import pe.quipu.core.testing.TestDatabase;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

class EventOutboxTest {

    private final TestDatabase database = TestDatabase.get();
    private final MutableClock clock = new MutableClock(Instant.parse("2026-10-07T15:00:00.123456Z"));
    private final EventOutbox outbox = new EventOutbox(clock, new ObjectMapper());

    @Test
    void an_event_of_no_account_and_one_of_an_account_are_stored_as_the_envelope_will_show_them() {
        UUID account = UUID.randomUUID();
        EventOutbox.Event operator = database.jdbi().inTransaction(h ->
                outbox.append(h, "etl.run.started", null, Map.of("runId", 7)));
        EventOutbox.Event mine = database.jdbi().inTransaction(h ->
                outbox.append(h, "key.created", account, Map.of("keyId", "k")));

        List<String> stored = database.rows("""
                        select type || ' ' || coalesce(account_id::text, '-') || ' ' || data::text || ' '
                               || to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US')
                          from events where id in (?, ?) order by seq""",
                rs -> rs.getString(1), operator.id(), mine.id());
        assertThat(stored).containsExactly(
                "etl.run.started - {\"runId\": 7} 2026-10-07T15:00:00.123456",
                "key.created " + account + " {\"keyId\": \"k\"} 2026-10-07T15:00:00.123456");
        assertThat(operator.id()).matches("evt_[0-9A-Za-z]{24}");
    }
}
