package pe.quipu.api.metering;

import java.time.Instant;

/**
 * One account's count in one bucket: quota units in a Lima month, requests in a clock minute, or the requests
 * answered and units spent in a Lima day. Guarded by its {@link AccountUsage}'s lock.
 *
 * <p>{@code shared} is the total of every instance as last read from the database; {@code inflight} is what this
 * instance is adding to it right now (taken by the sync in progress); {@code unsynced} is what it counted since.
 * Their sum is this instance's best knowledge of the bucket's total.
 */
final class Counter {

    enum Kind {
        MONTH(true), MINUTE(true), DAY_REQUESTS(false), DAY_UNITS(false);

        /**
         * Whether decisions need the bucket's shared total: the month's and the minute's are read back from the
         * database; a day's counts are only added to it (GET /v1/usage/daily reads them there).
         */
        final boolean read;

        Kind(boolean read) {
            this.read = read;
        }
    }

    final AccountUsage owner;
    final Kind kind;
    /** The bucket's first instant: the Lima month's start or the minute's start. */
    final Instant bucket;
    long shared;
    long inflight;
    long unsynced;
    /** Whether {@code shared} says anything: false until the bucket's stored total has been read once. */
    boolean known;

    /** @param known whether the bucket's stored total is known already; always, for a bucket that is never read */
    Counter(AccountUsage owner, Kind kind, Instant bucket, boolean known) {
        this.owner = owner;
        this.kind = kind;
        this.bucket = bucket;
        this.known = known || !kind.read;
    }

    long total() {
        return shared + inflight + unsynced;
    }

    /** What this instance counted that the other instances cannot know of yet. */
    long ahead() {
        return inflight + unsynced;
    }
}
