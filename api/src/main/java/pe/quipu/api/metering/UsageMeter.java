package pe.quipu.api.metering;

import pe.quipu.api.domain.Allowance;
import pe.quipu.api.domain.DomainException.QuotaExceeded;
import pe.quipu.api.domain.DomainException.RateLimited;
import pe.quipu.api.plans.AccountLimits;
import pe.quipu.api.domain.LimaCalendar;
import pe.quipu.api.domain.Text;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * Counts each account's requests per clock minute and quota units per Lima month, in memory, and decides whether a
 * request may go on. No request reads or writes the database: {@link MeterSync} adds every instance's counts to the
 * shared ones in the background and brings back the totals, and a decision is taken on the shared total plus what
 * this instance counted since. It also counts, per Lima day, the requests answered and the units they spent, which
 * no decision reads: the sync only adds them to the database, where {@code GET /v1/usage/daily} reads them.
 *
 * <p>How far one instance may count ahead of the shared totals is bounded when other instances are alive: by one
 * second's worth of the per-minute limit and by 1 % of the monthly quota, each split among the other instances (at
 * least 1). A request that would go beyond waits for the next sync (started at once) and is decided on fresh totals;
 * so is an account's first request on this instance, whose stored totals (a restart, another instance) are read
 * first. Whoever syncs last decided on a total that lacked at most the others' allowances, hence the bounds of
 * contract §2.
 */
public final class UsageMeter {

    /** An account with no request for this long is forgotten; its next request reads its totals again. */
    static final Duration IDLE_EVICTION = Duration.ofMinutes(2);
    private static final Duration MINUTE = Duration.ofMinutes(1);
    /** Past this many waits for a sync (the database is unreachable), a request is decided on what is known. */
    private static final int MAX_SYNC_WAITS = 3;

    private final Clock clock;
    private final MeteringStore store;
    /** The current Lima month and day, asked for on every metered request. */
    private final LimaCalendar.Periods periods = new LimaCalendar.Periods();
    private final ConcurrentHashMap<UUID, AccountUsage> accounts = new ConcurrentHashMap<>();
    /** Counters of past buckets with counts not yet in the database. */
    private final Set<Counter> retired = ConcurrentHashMap.newKeySet();
    private volatile int instances = 1;
    private volatile SyncWaiter sync;
    /** Told the problem type of each refusal ({@code rate_limited}, {@code quota_exceeded}), for the metrics. */
    private volatile Consumer<String> refusals = type -> { };

    /** How a request thread waits for a fresh sync; there is none while the sync is not running. */
    interface SyncWaiter {
        /** Starts a sync unless one is about to, and returns once a sync that began after this call ended. */
        void awaitFreshSync();
    }

    public UsageMeter(Clock clock, MeteringStore store) {
        this.clock = clock;
        this.store = store;
    }

    static final String RATE_LIMITED = "rate_limited";
    static final String QUOTA_EXCEEDED = "quota_exceeded";

    /** Tells {@code listener} the type of each refusal from now on. */
    void onRefusal(Consumer<String> listener) {
        refusals = listener;
    }

    /**
     * Admits one request of this account, counting it for the minute and reserving one quota unit, or throws
     * {@link RateLimited} (checked first) or {@link QuotaExceeded}; a refused request is counted nowhere.
     */
    public Ticket admit(AccountLimits limits) {
        return admit(limits, 1);
    }

    /**
     * As {@link #admit(AccountLimits)}, reserving {@code units} quota units: 1, or 0 for a request that counts
     * toward the per-minute rate only, and so is never refused for the month's quota.
     */
    public Ticket admit(AccountLimits limits, int units) {
        int waits = 0;
        while (true) {
            Instant now = clock.instant();
            AccountUsage usage = current(limits.accountId(), now);
            SyncWaiter waiter = sync;
            boolean mayWait = waits < MAX_SYNC_WAITS && waiter != null;
            Instant monthStart = periods.monthStart(now);
            Instant dayStart = periods.dayStart(now);
            Instant minuteStart = minuteStart(now);
            synchronized (usage) {
                if (usage.evicted) {
                    continue;
                }
                usage.lastUsedNanos = System.nanoTime();
                usage.roll(monthStart, dayStart, minuteStart, retired::add);
                Counter minute = usage.minute;
                Counter month = usage.month;
                if (!mayWait || month.known && minute.known) {
                    if (minute.total() + 1 > limits.rateLimitRpm()) {
                        refusals.accept(RATE_LIMITED);
                        throw rateLimited(limits, minute, month, now);
                    }
                    if (units > 0 && month.total() + units > limits.monthlyQuota()) {
                        refusals.accept(QUOTA_EXCEEDED);
                        throw quotaExceeded(limits, minute, month, now, units, 0);
                    }
                    if (!mayWait || minute.ahead() + 1 <= rateAllowance(limits)
                            && (units == 0 || month.ahead() + units <= quotaAllowance(limits))) {
                        minute.unsynced++;
                        month.unsynced += units;
                        return new Ticket(this, limits, minute, month, usage.dayRequests, usage.dayUnits, units);
                    }
                }
            }
            waits++;
            waiter.awaitFreshSync();
        }
    }

    /**
     * Reserves {@code units} more quota units for an admitted request (a batch needs as many units as RUCs), or
     * throws {@link QuotaExceeded}, leaving the ticket as it was.
     */
    void reserve(Ticket ticket, long units) {
        Counter month = ticket.month;
        int waits = 0;
        while (true) {
            SyncWaiter waiter = sync;
            boolean mayWait = waits < MAX_SYNC_WAITS && waiter != null;
            synchronized (month.owner) {
                if (month.total() + units > ticket.limits.monthlyQuota()) {
                    refusals.accept(QUOTA_EXCEEDED);
                    throw quotaExceeded(ticket.limits, ticket.minute, month, clock.instant(), ticket.reserved + units,
                            ticket.reserved);
                }
                // A batch larger than the allowance goes once nothing else of this instance is unsynced.
                if (!mayWait || month.ahead() + units <= Math.max(quotaAllowance(ticket.limits), units)) {
                    month.unsynced += units;
                    ticket.reserved += units;
                    return;
                }
            }
            waits++;
            waiter.awaitFreshSync();
        }
    }

    /**
     * Gives back what an answer does not cost: its quota units when it is not charged, and its place in the
     * minute's count when it is a 429. Counts the answer in its Lima day (the day it was admitted, as its month):
     * one request unless it is a 429, and the units it spent. Returns what the answer says the account has left.
     */
    Allowance settle(Ticket ticket, boolean charged, boolean refused) {
        Counter minute = ticket.minute;
        Counter month = ticket.month;
        synchronized (month.owner) {
            if (!charged) {
                month.unsynced -= ticket.reserved;
                ticket.reserved = 0;
                keepForSync(month);
            }
            if (refused) {
                minute.unsynced--;
                keepForSync(minute);
            } else {
                ticket.dayRequests.unsynced++;
                keepForSync(ticket.dayRequests);
            }
            if (ticket.reserved > 0) {
                ticket.dayUnits.unsynced += ticket.reserved;
                keepForSync(ticket.dayUnits);
            }
            return allowance(ticket.limits, minute, month, clock.instant());
        }
    }

    /** A counter its account no longer uses still has its change flushed. */
    private void keepForSync(Counter counter) {
        AccountUsage owner = counter.owner;
        if (owner.evicted || !owner.holds(counter)) {
            retired.add(counter);
        }
    }

    /** The quota units this account used this Lima month, as far as is known (all instances). */
    public long monthUsed(AccountLimits limits) {
        if (sync == null) {
            Instant now = clock.instant();
            return Math.max(0, store.monthUsed(limits.accountId(), periods.monthStart(now)));
        }
        int waits = 0;
        while (true) {
            Instant now = clock.instant();
            AccountUsage usage = current(limits.accountId(), now);
            SyncWaiter waiter = sync;
            synchronized (usage) {
                if (usage.evicted) {
                    continue;
                }
                usage.lastUsedNanos = System.nanoTime();
                usage.roll(periods.monthStart(now), periods.dayStart(now), minuteStart(now),
                        retired::add);
                if (usage.month.known || waits >= MAX_SYNC_WAITS || waiter == null) {
                    return Math.max(0, usage.month.total());
                }
            }
            waits++;
            waiter.awaitFreshSync();
        }
    }

    private AccountUsage current(UUID accountId, Instant now) {
        return accounts.computeIfAbsent(accountId,
                id -> new AccountUsage(id, periods.monthStart(now), periods.dayStart(now),
                        minuteStart(now)));
    }

    private long rateAllowance(AccountLimits limits) {
        int others = instances - 1;
        return others <= 0 ? Long.MAX_VALUE : Math.max(1, limits.rateLimitRpm() / 60 / others);
    }

    private long quotaAllowance(AccountLimits limits) {
        int others = instances - 1;
        return others <= 0 ? Long.MAX_VALUE : Math.max(1, limits.monthlyQuota() / 100 / others);
    }

    // --- the sync's side, on the sync thread

    void attach(SyncWaiter waiter) {
        this.sync = waiter;
    }

    void detach() {
        this.sync = null;
    }

    /** How many metering instances (this one included) share the database, as last seen. */
    public int instances() {
        return instances;
    }

    void instances(int alive) {
        this.instances = Math.max(1, alive);
    }

    /** Accounts this instance is tracking. */
    public int trackedAccounts() {
        return accounts.size();
    }

    /**
     * Takes every count the database has not seen (they become in flight) and lists the totals to read: those never
     * read, and, when other instances are alive, every tracked account's, to learn what they counted. Forgets
     * accounts idle for {@link #IDLE_EVICTION}.
     */
    SyncBatch takeBatch() {
        long now = System.nanoTime();
        boolean shared = instances > 1;
        List<SyncBatch.Entry> entries = new ArrayList<>();
        for (AccountUsage usage : accounts.values()) {
            synchronized (usage) {
                if (now - usage.lastUsedNanos > IDLE_EVICTION.toNanos() && usage.synced()) {
                    usage.evicted = true;
                    accounts.remove(usage.accountId, usage);
                    continue;
                }
                take(usage.month, shared, entries);
                take(usage.minute, shared, entries);
                take(usage.dayRequests, false, entries);
                take(usage.dayUnits, false, entries);
            }
        }
        for (Counter counter : retired) {
            synchronized (counter.owner) {
                if (counter.unsynced == 0 && counter.inflight == 0) {
                    retired.remove(counter);
                } else {
                    take(counter, false, entries);
                }
            }
        }
        return new SyncBatch(entries);
    }

    private static void take(Counter counter, boolean read, List<SyncBatch.Entry> entries) {
        long delta = counter.unsynced;
        if (delta != 0) {
            counter.unsynced = 0;
            counter.inflight += delta;
            entries.add(new SyncBatch.Entry(counter, delta));
        } else if (read || !counter.known) {
            entries.add(new SyncBatch.Entry(counter, 0));
        }
    }

    /** The database has the batch's counts: in-flight counts become part of the shared totals read back. */
    void applied(SyncBatch batch, Map<SyncBatch.Key, Long> totals) {
        for (SyncBatch.Entry entry : batch.entries()) {
            Counter counter = entry.counter();
            synchronized (counter.owner) {
                counter.inflight -= entry.delta();
                counter.shared = totals.getOrDefault(entry.key(), 0L);
                counter.known = true;
            }
        }
    }

    /** The batch did not reach the database: its counts wait for the next sync. */
    void failed(SyncBatch batch) {
        for (SyncBatch.Entry entry : batch.entries()) {
            Counter counter = entry.counter();
            synchronized (counter.owner) {
                counter.inflight -= entry.delta();
                counter.unsynced += entry.delta();
            }
        }
    }

    // --- answers

    static Instant minuteStart(Instant now) {
        return now.truncatedTo(ChronoUnit.MINUTES);
    }

    private RateLimited rateLimited(AccountLimits limits, Counter minute, Counter month, Instant now) {
        long retryAfter = secondsUntil(minute.bucket.plus(MINUTE), now);
        return new RateLimited(Text.of("metering.rate_limited", limits.rateLimitRpm(), limits.plan(), retryAfter),
                retryAfter, allowance(limits, minute, month, now));
    }

    /** @param own the units this request already holds, counted in {@code month} but left to it */
    private QuotaExceeded quotaExceeded(AccountLimits limits, Counter minute, Counter month, Instant now,
                                               long units, long own) {
        long remaining = Math.max(0, limits.monthlyQuota() - (month.total() - own));
        long retryAfter = secondsUntil(LimaCalendar.nextMonthStart(now), now);
        Text detail = units == 1
                ? Text.of("metering.quota_exceeded", limits.monthlyQuota(), limits.plan(), retryAfter)
                : Text.of("metering.quota_exceeded_batch", limits.monthlyQuota(), limits.plan(), units, remaining,
                        retryAfter);
        return new QuotaExceeded(detail, retryAfter, allowance(limits, minute, month, now));
    }

    /**
     * What a metered answer says the account has left: of the minute and of the Lima month the request was admitted
     * in (the month's end remembered, not computed for every answer).
     */
    private Allowance allowance(AccountLimits limits, Counter minute, Counter month, Instant now) {
        return new Allowance(limits.rateLimitRpm(), Math.max(0, limits.rateLimitRpm() - minute.total()),
                secondsUntil(minute.bucket.plus(MINUTE), now), limits.monthlyQuota(),
                Math.max(0, limits.monthlyQuota() - month.total()),
                secondsUntil(periods.nextMonthStart(month.bucket), now));
    }

    /** Whole seconds from {@code now} until {@code end}, rounded up, at least 1. */
    static long secondsUntil(Instant end, Instant now) {
        long millis = Duration.between(now, end).toMillis();
        return Math.max(1, Math.ceilDiv(millis, 1000));
    }
}
