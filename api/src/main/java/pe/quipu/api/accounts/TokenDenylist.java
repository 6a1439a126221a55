package pe.quipu.api.accounts;

import io.dropwizard.lifecycle.Managed;
import org.jdbi.v3.core.Jdbi;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Access tokens (by {@code jti}) and sessions (by {@code sid}) that must fail before their JWTs expire: a logout, a
 * session revoked for refresh-token reuse, an account's deletion. The {@code token_denylist} table is the truth;
 * every instance keeps its unexpired rows in memory, each with its expiry, so checking a token costs no query.
 *
 * <p>The whole table is read only at start and when notifications may have been missed (the LISTEN connection was
 * lost, and again once it is back). Otherwise the list grows one row at a time: the instance that writes a row adds
 * it itself once committed ({@link #deny}), and every instance, that one included, reads the one row that
 * {@code quipu_token_denylist} names (its expiry), by its primary key. Entries past their expiry are dropped from
 * memory at most once a minute, as the list changes: their JWTs fail on {@code exp} anyway.
 */
public final class TokenDenylist implements Managed {

    public static final String CHANNEL = "quipu_token_denylist";
    /** How often, at most, entries past their expiry are dropped from memory. */
    static final Duration SWEEP_EVERY = Duration.ofMinutes(1);
    /** A notified entry whose row has not been read yet: refused, and kept until the row says until when. */
    private static final Instant UNREAD = Instant.MAX;

    private final Jdbi jdbi;
    private final Clock clock;
    /** {@code jti:<value>} or {@code sid:<value>}, and until when it is refused. */
    private final ConcurrentHashMap<String, Instant> denied = new ConcurrentHashMap<>();
    private final AtomicLong rowsRead = new AtomicLong();
    private volatile Instant nextSweep = Instant.MIN;

    public TokenDenylist(Jdbi jdbi, Clock clock) {
        this.jdbi = jdbi;
        this.clock = clock;
    }

    public boolean deniesToken(String jti) {
        return denied.containsKey("jti:" + jti);
    }

    public boolean deniesSession(String sid) {
        return denied.containsKey("sid:" + sid);
    }

    /** Reads the rows once listening has started, so that no addition in between goes unnoticed. */
    @Override
    public void start() {
        reload();
    }

    /**
     * A row this instance has just committed, as its statement answered it: refused here at once, without reading
     * anything. The other instances hear of it by notification.
     */
    void deny(SessionRows.Denial row) {
        settle(row.key(), row.expiresAt());
        sweepIfDue();
    }

    /**
     * A notification names a new (or extended) row, {@code jti:<value>} or {@code sid:<value>}: it is refused at once,
     * even if reading its row fails, and then the row alone is read for its expiry. Anything else is not a row's name,
     * and the whole list is read again.
     */
    public void onNotification(String payload) {
        int colon = payload.indexOf(':');
        String kind = colon < 0 ? "" : payload.substring(0, colon);
        if (!kind.equals("jti") && !kind.equals("sid")) {
            reload();
            return;
        }
        denied.putIfAbsent(payload, UNREAD);
        Optional<Instant> until = jdbi.withHandle(h -> h.attach(SessionRows.class)
                .denial(kind, payload.substring(colon + 1)));
        until.ifPresent(u -> {
            rowsRead.incrementAndGet();
            settle(payload, u);
        });
        if (until.isEmpty()) {
            // Already deleted, being expired: nothing left to refuse.
            denied.remove(payload, UNREAD);
        }
        sweepIfDue();
    }

    /**
     * Reads every unexpired row: at start, and when notifications may have been missed. Rows only ever appear or
     * extend, and are deleted once expired, so what is read is merged in (the later expiry wins) and nothing is
     * taken out but expired entries: a row added meanwhile, which this read may predate, stays.
     */
    public void reload() {
        List<SessionRows.Denial> rows = jdbi.withHandle(h -> h.attach(SessionRows.class).denied(clock.instant()));
        rowsRead.addAndGet(rows.size());
        for (SessionRows.Denial row : rows) {
            settle(row.key(), row.expiresAt());
        }
        sweep(clock.instant());
    }

    /** Rows read from the table since start: a measure of what keeping the list costs. */
    public long rowsRead() {
        return rowsRead.get();
    }

    /** Entries held in memory. */
    public int size() {
        return denied.size();
    }

    /** The later of what is known and {@code until}; an entry not read yet takes its row's expiry. */
    private void settle(String key, Instant until) {
        denied.merge(key, until, (known, row) -> known.equals(UNREAD) || row.isAfter(known) ? row : known);
    }

    private void sweepIfDue() {
        Instant now = clock.instant();
        if (!now.isBefore(nextSweep)) {
            sweep(now);
        }
    }

    private void sweep(Instant now) {
        nextSweep = now.plus(SWEEP_EVERY);
        denied.values().removeIf(until -> !until.isAfter(now));
    }
}
