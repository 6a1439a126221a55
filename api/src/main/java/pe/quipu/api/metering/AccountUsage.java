package pe.quipu.api.metering;

import java.time.Instant;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * One account's counters on this instance: this Lima month's quota units, this minute's requests, and this Lima
 * day's requests answered and units spent.
 */
final class AccountUsage {

    final UUID accountId;
    Counter month;
    Counter minute;
    Counter dayRequests;
    Counter dayUnits;
    /** System.nanoTime of the last request: idleness is this process's business, not the clock's. */
    long lastUsedNanos;
    /** Set by the sync when it drops this idle account; whoever still holds it takes the map's new one. */
    boolean evicted;

    /** A first sight of the account: neither bucket's stored total is known yet. */
    AccountUsage(UUID accountId, Instant monthStart, Instant dayStart, Instant minuteStart) {
        this.accountId = accountId;
        this.month = new Counter(this, Counter.Kind.MONTH, monthStart, false);
        this.minute = new Counter(this, Counter.Kind.MINUTE, minuteStart, false);
        this.dayRequests = new Counter(this, Counter.Kind.DAY_REQUESTS, dayStart, false);
        this.dayUnits = new Counter(this, Counter.Kind.DAY_UNITS, dayStart, false);
        this.lastUsedNanos = System.nanoTime();
    }

    /**
     * Moves to the buckets {@code now} falls in. A later bucket starts from zero, known: nothing can have been
     * stored for it yet beyond what other instances count meanwhile, which the sync brings in. A counter left with
     * counts the database has not seen goes to {@code retire}, for the sync to flush. (An earlier bucket only
     * happens when the clock is set back; its total is read again.)
     */
    void roll(Instant monthStart, Instant dayStart, Instant minuteStart, Consumer<Counter> retire) {
        month = rolled(month, monthStart, retire);
        minute = rolled(minute, minuteStart, retire);
        dayRequests = rolled(dayRequests, dayStart, retire);
        dayUnits = rolled(dayUnits, dayStart, retire);
    }

    /** Whether the account counts in this counter now (rather than it being of a past bucket). */
    boolean holds(Counter counter) {
        return month == counter || minute == counter || dayRequests == counter || dayUnits == counter;
    }

    /** Whether every counter's counts are in the database (or on their way there). */
    boolean synced() {
        return month.ahead() == 0 && minute.ahead() == 0 && dayRequests.ahead() == 0 && dayUnits.ahead() == 0;
    }

    private Counter rolled(Counter current, Instant bucket, Consumer<Counter> retire) {
        if (current.bucket.equals(bucket)) {
            return current;
        }
        if (current.ahead() != 0) {
            retire.accept(current);
        }
        return new Counter(this, current.kind, bucket, bucket.isAfter(current.bucket));
    }
}
