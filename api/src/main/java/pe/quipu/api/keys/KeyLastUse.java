package pe.quipu.api.keys;

import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Each key's {@code lastUsedAt} without a write per request: an authentication only records the instant in
 * memory, and {@link #flush} writes all the recorded instants in one statement; the application runs it every
 * {@code keys.lastUsedFlushInterval} and once more on stop, so a graceful shutdown loses none. The write never goes back in time ({@code greatest}), so instances flushing in
 * any order agree. The {@code api_keys} trigger ignores {@code last_used_at}: a flush evicts no cached key.
 */
public final class KeyLastUse {


    private final Jdbi jdbi;
    private final Clock clock;
    private final ConcurrentHashMap<UUID, Instant> pending = new ConcurrentHashMap<>();

    public KeyLastUse(Jdbi jdbi, Clock clock) {
        this.jdbi = jdbi;
        this.clock = clock;
    }

    /** The key authenticated a request now. */
    void record(UUID keyId) {
        pending.put(keyId, clock.instant().truncatedTo(ChronoUnit.MICROS)); // what PostgreSQL keeps
    }

    /**
     * Writes the instants recorded so far in one transaction; returns how many keys it wrote. An instant recorded
     * while this runs is kept for the next flush, and so is everything when the write fails.
     */
    public int flush() {
        if (pending.isEmpty()) {
            return 0;
        }
        Map<UUID, Instant> batch = new HashMap<>(pending);
        String[] ids = new String[batch.size()];
        String[] instants = new String[batch.size()];
        int i = 0;
        for (Map.Entry<UUID, Instant> entry : batch.entrySet()) {
            ids[i] = entry.getKey().toString();
            instants[i] = entry.getValue().toString();
            i++;
        }
        jdbi.useTransaction(h -> {
            LastUseRows rows = h.attach(LastUseRows.class);
            rows.lock(ids);
            rows.write(ids, instants);
        });
        batch.forEach(pending::remove); // only entries not recorded again meanwhile
        return batch.size();
    }

    /** Ids and instants travel as text arrays, cast by PostgreSQL: one statement whatever the number of keys. */
    interface LastUseRows {
        /** Rows are locked in id order first, so two instances flushing overlapping keys cannot deadlock. */
        @SqlQuery("select id from api_keys where id = any (cast(:ids as uuid[])) order by id for update")
        List<UUID> lock(String[] ids);

        @SqlUpdate("""
                update api_keys k set last_used_at = greatest(k.last_used_at, u.at)
                  from unnest(cast(:ids as uuid[]), cast(:instants as timestamptz[])) as u (id, at)
                 where k.id = u.id""")
        void write(String[] ids, String[] instants);
    }
}
