package pe.quipu.api.metering;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** What one sync adds to the shared counts (deltas) and which shared totals it reads back (delta 0). */
record SyncBatch(List<Entry> entries) {

    /** A stored count: an account's quota units in a month, or its requests in a minute window. */
    record Key(Counter.Kind kind, UUID accountId, Instant bucket) {
    }

    record Entry(Counter counter, long delta) {
        Key key() {
            return new Key(counter.kind, counter.owner.accountId, counter.bucket);
        }
    }

    boolean isEmpty() {
        return entries.isEmpty();
    }

    /** The deltas to add by stored count, several counters of one count summed (one row is updated once). */
    Map<Key, Long> deltas(Counter.Kind kind) {
        Map<Key, Long> deltas = new LinkedHashMap<>();
        for (Entry entry : entries) {
            if (entry.counter().kind == kind) {
                deltas.merge(entry.key(), entry.delta(), Long::sum);
            }
        }
        return deltas;
    }
}
