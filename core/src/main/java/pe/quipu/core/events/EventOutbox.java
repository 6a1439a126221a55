package pe.quipu.core.events;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.sqlobject.customizer.BindMethods;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.UUID;

/**
 * Appends events to the {@code events} outbox on the caller's handle, so an event commits or rolls back with
 * the change it announces. The webhook worker turns outbox rows into deliveries later;
 * nothing here calls out.
 */
public final class EventOutbox {

    private static final char[] BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".toCharArray();

    private final Clock clock;
    private final ObjectMapper json;
    private final SecureRandom random = new SecureRandom();

    public EventOutbox(Clock clock, ObjectMapper json) {
        this.clock = clock;
        this.json = json;
    }

    /**
     * Appends one event in the transaction {@code handle} is in.
     *
     * @param accountId the account the event concerns, or null for operator-level events (etl.run.*)
     * @param data      the event's {@code data} payload, serialised as JSON
     * @return the stored event
     */
    public Event append(Handle handle, String type, UUID accountId, Object data) {
        // PostgreSQL keeps microseconds: the instant returned is the one stored, and the one envelopes show.
        Event event = new Event(newId(), type, accountId, clock.instant().truncatedTo(ChronoUnit.MICROS),
                toJson(data));
        handle.attach(EventRows.class).insert(event);
        return event;
    }

    /** The outbox's SQL. */
    interface EventRows {
        @SqlUpdate("""
                insert into events (id, type, account_id, data, created_at)
                values (:id, :type, :accountId, cast(:dataJson as jsonb), :createdAt)""")
        void insert(@BindMethods Event event);
    }

    private String toJson(Object data) {
        try {
            return json.writeValueAsString(data);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("event data is not serialisable", e);
        }
    }

    private String newId() {
        char[] id = new char[24];
        for (int i = 0; i < id.length; i++) {
            id[i] = BASE62[random.nextInt(BASE62.length)];
        }
        return "evt_" + new String(id);
    }

    /** An outbox row: {@code id}, {@code type}, {@code createdAt} and {@code data} form the webhook envelope. */
    public record Event(String id, String type, UUID accountId, Instant createdAt, String dataJson) {
    }
}
