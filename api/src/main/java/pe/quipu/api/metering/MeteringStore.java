package pe.quipu.api.metering;

import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;
import pe.quipu.api.domain.LimaCalendar;
import pe.quipu.core.events.EventOutbox;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.YearMonth;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;

/**
 * The shared counts: {@code usage_counters} (quota units per account and Lima month), {@code rate_windows}
 * (requests per account and minute), {@code usage_days} (requests answered and units spent per account and Lima
 * day) and {@code metering_instances}. Every statement here serves a whole sync of one instance, never one request,
 * but for {@link #days}, which serves {@code GET /v1/usage/daily}.
 */
public final class MeteringStore {

    public static final String THRESHOLD_EVENT = "usage.threshold_reached";

    private final Jdbi jdbi;
    private final EventOutbox outbox;
    private final Clock clock;

    public MeteringStore(Jdbi jdbi, EventOutbox outbox, Clock clock) {
        this.jdbi = jdbi;
        this.outbox = outbox;
        this.clock = clock;
    }

    /** An account's alert threshold: {@code percent} % of {@code limit} units a month. */
    record AlertThreshold(long limit, int percent) {

        /** The smallest count at or above {@code percent} % of {@code limit}, without overflowing. */
        long units() {
            return limit / 100 * percent + Math.ceilDiv(limit % 100 * percent, 100);
        }
    }

    /**
     * In one transaction: adds the batch's deltas (days included), reads the totals it asks for, and emits
     * {@code usage.threshold_reached} for each account whose month total has just reached its threshold.
     *
     * @return every total the batch concerns; an absent row is 0
     */
    Map<SyncBatch.Key, Long> sync(SyncBatch batch, Function<UUID, Optional<AlertThreshold>> thresholds) {
        Map<SyncBatch.Key, Long> months = batch.deltas(Counter.Kind.MONTH);
        Map<SyncBatch.Key, Long> minutes = batch.deltas(Counter.Kind.MINUTE);
        return jdbi.inTransaction(handle -> {
            CountRows rows = handle.attach(CountRows.class);
            Map<SyncBatch.Key, Long> totals = new HashMap<>();
            Map<SyncBatch.Key, Long> addMonths = nonZero(months);
            List<MonthCount> added = addMonths.isEmpty() ? List.of() : rows.addMonthUnits(accounts(addMonths.keySet()),
                    periods(addMonths.keySet()), addMonths.values().toArray(Long[]::new));
            Map<SyncBatch.Key, Long> addMinutes = nonZero(minutes);
            if (!addMinutes.isEmpty()) {
                rows.addMinuteRequests(accounts(addMinutes.keySet()), windows(addMinutes.keySet()),
                                addMinutes.values().stream().map(Math::toIntExact).toArray(Integer[]::new))
                        .forEach(row -> totals.put(row.key(), row.used()));
            }
            addDays(rows, batch, totals);
            List<SyncBatch.Key> readMonths = zero(months);
            if (!readMonths.isEmpty()) {
                rows.readMonthUnits(accounts(readMonths), periods(readMonths))
                        .forEach(row -> totals.put(row.key(), row.used()));
            }
            List<SyncBatch.Key> readMinutes = zero(minutes);
            if (!readMinutes.isEmpty()) {
                rows.readMinuteRequests(accounts(readMinutes), windows(readMinutes))
                        .forEach(row -> totals.put(row.key(), row.used()));
            }
            for (MonthCount row : added) {
                totals.put(row.key(), row.used());
                if (row.alertedAt() == null) {
                    Optional<AlertThreshold> threshold = thresholds.apply(row.accountId())
                            .filter(t -> t.limit() > 0 && row.used() >= t.units());
                    if (threshold.isPresent()) {
                        alert(handle, rows, row, threshold.get());
                    }
                }
            }
            return totals;
        });
    }

    /**
     * One row per account and day for both of the day's counts (keyed here as its requests count); {@code totals}
     * gets the stored ones back.
     */
    private static void addDays(CountRows rows, SyncBatch batch, Map<SyncBatch.Key, Long> totals) {
        Map<SyncBatch.Key, long[]> days = new LinkedHashMap<>();
        nonZero(batch.deltas(Counter.Kind.DAY_REQUESTS)).forEach((key, delta) -> days.computeIfAbsent(key,
                k -> new long[2])[0] = delta);
        nonZero(batch.deltas(Counter.Kind.DAY_UNITS)).forEach((key, delta) -> days.computeIfAbsent(
                new SyncBatch.Key(Counter.Kind.DAY_REQUESTS, key.accountId(), key.bucket()), k -> new long[2])[1] = delta);
        if (days.isEmpty()) {
            return;
        }
        rows.addDays(accounts(days.keySet()), dates(days.keySet()),
                        days.values().stream().map(d -> d[0]).toArray(Long[]::new),
                        days.values().stream().map(d -> d[1]).toArray(Long[]::new))
                .forEach(row -> {
                    totals.put(row.key(Counter.Kind.DAY_REQUESTS), row.requests());
                    totals.put(row.key(Counter.Kind.DAY_UNITS), row.units());
                });
    }

    private static Map<SyncBatch.Key, Long> nonZero(Map<SyncBatch.Key, Long> deltas) {
        Map<SyncBatch.Key, Long> selected = new LinkedHashMap<>();
        deltas.forEach((key, delta) -> {
            if (delta != 0) {
                selected.put(key, delta);
            }
        });
        return selected;
    }

    private static List<SyncBatch.Key> zero(Map<SyncBatch.Key, Long> deltas) {
        List<SyncBatch.Key> keys = new ArrayList<>();
        deltas.forEach((key, delta) -> {
            if (delta == 0) {
                keys.add(key);
            }
        });
        return keys;
    }

    private static String[] accounts(java.util.Collection<SyncBatch.Key> keys) {
        return keys.stream().map(k -> k.accountId().toString()).toArray(String[]::new);
    }

    /** Months as their Lima dates. */
    private static String[] periods(java.util.Collection<SyncBatch.Key> keys) {
        return keys.stream().map(k -> period(k.bucket()).toString()).toArray(String[]::new);
    }

    /** Lima days as their dates. */
    private static String[] dates(java.util.Collection<SyncBatch.Key> keys) {
        return keys.stream().map(k -> LimaCalendar.date(k.bucket()).toString())
                .toArray(String[]::new);
    }

    private static String[] windows(java.util.Collection<SyncBatch.Key> keys) {
        return keys.stream().map(k -> k.bucket().toString()).toArray(String[]::new);
    }

    private void alert(Handle handle, CountRows rows, MonthCount row, AlertThreshold threshold) {
        // Only the first instance to see the threshold crossed in a month marks it, and so emits the event.
        rows.markAlerted(clock.instant(), row.accountId(), row.period(), threshold.units()).ifPresent(used -> {
            Map<String, Object> data = new LinkedHashMap<>();
            data.put("period", YearMonth.from(row.period()).toString());
            data.put("used", used);
            data.put("limit", threshold.limit());
            data.put("percent", threshold.percent());
            outbox.append(handle, THRESHOLD_EVENT, row.accountId(), data);
        });
    }

    /** Says this instance is alive and answers how many are (itself included). */
    int heartbeat(UUID instance, Duration liveness) {
        return jdbi.withHandle(h -> h.attach(CountRows.class).heartbeat(instance, (double) liveness.toSeconds()));
    }

    /** A stopping instance is no longer counted as alive. */
    void leave(UUID instance) {
        jdbi.useHandle(h -> h.attach(CountRows.class).leave(instance));
    }

    /** Deletes minute windows that started before {@code before}, and instances gone for a day. */
    void deleteOldWindows(Instant before) {
        jdbi.useHandle(h -> {
            CountRows rows = h.attach(CountRows.class);
            rows.deleteWindowsBefore(before);
            rows.deleteGoneInstances();
        });
    }

    long monthUsed(UUID accountId, Instant monthStart) {
        return jdbi.withHandle(h -> h.attach(CountRows.class).monthUsed(accountId, period(monthStart))).orElse(0L);
    }

    /** The account's stored days from {@code from} to {@code to} (Lima dates, both included); days never used are absent. */
    public List<DayCount> days(UUID accountId, LocalDate from, LocalDate to) {
        return jdbi.withHandle(h -> h.attach(CountRows.class).days(accountId, from, to));
    }

    static LocalDate period(Instant monthStart) {
        return LimaCalendar.date(monthStart);
    }

    /** A month's stored count, and whether its threshold event was already emitted. */
    public record MonthCount(UUID accountId, LocalDate period, long used, Instant alertedAt) {
        SyncBatch.Key key() {
            return new SyncBatch.Key(Counter.Kind.MONTH, accountId,
                    LimaCalendar.startOf(period));
        }
    }

    /** A Lima day's stored counts: the requests answered, and the quota units they spent. */
    public record DayCount(UUID accountId, LocalDate day, long requests, long units) {
        SyncBatch.Key key(Counter.Kind kind) {
            return new SyncBatch.Key(kind, accountId, LimaCalendar.startOf(day));
        }
    }

    /** A minute's stored count. */
    public record MinuteCount(UUID accountId, Instant windowStart, long used) {
        SyncBatch.Key key() {
            return new SyncBatch.Key(Counter.Kind.MINUTE, accountId, windowStart);
        }
    }

    /**
     * Accounts, buckets and counts travel as arrays, one statement for a whole sync; rows are locked in one order
     * everywhere (account, then bucket).
     */
    @RegisterConstructorMapper(MonthCount.class)
    @RegisterConstructorMapper(MinuteCount.class)
    @RegisterConstructorMapper(DayCount.class)
    interface CountRows {
        @SqlQuery("""
                insert into usage_counters as u (account_id, period, used)
                select d.account_id, d.period, d.used
                  from unnest(cast(:accounts as uuid[]), cast(:periods as date[]), cast(:units as bigint[]))
                       as d (account_id, period, used)
                 order by d.account_id, d.period
                on conflict (account_id, period) do update set used = u.used + excluded.used
                returning u.account_id, u.period, u.used, u.alerted_at""")
        List<MonthCount> addMonthUnits(String[] accounts, String[] periods, Long[] units);

        @SqlQuery("""
                insert into rate_windows as w (account_id, window_start, used)
                select d.account_id, d.window_start, d.used
                  from unnest(cast(:accounts as uuid[]), cast(:windows as timestamptz[]), cast(:requests as integer[]))
                       as d (account_id, window_start, used)
                 order by d.account_id, d.window_start
                on conflict (account_id, window_start) do update set used = w.used + excluded.used
                returning w.account_id, w.window_start, w.used""")
        List<MinuteCount> addMinuteRequests(String[] accounts, String[] windows, Integer[] requests);

        @SqlQuery("""
                insert into usage_days as u (account_id, day, requests, units)
                select d.account_id, d.day, d.requests, d.units
                  from unnest(cast(:accounts as uuid[]), cast(:days as date[]), cast(:requests as bigint[]),
                              cast(:units as bigint[])) as d (account_id, day, requests, units)
                 order by d.account_id, d.day
                on conflict (account_id, day) do update
                   set requests = u.requests + excluded.requests, units = u.units + excluded.units
                returning u.account_id, u.day, u.requests, u.units""")
        List<DayCount> addDays(String[] accounts, String[] days, Long[] requests, Long[] units);

        @SqlQuery("""
                select account_id, day, requests, units from usage_days
                 where account_id = :accountId and day between :from and :to
                 order by day""")
        List<DayCount> days(UUID accountId, LocalDate from, LocalDate to);

        @SqlQuery("""
                select u.account_id, u.period, u.used, u.alerted_at
                  from usage_counters u
                  join unnest(cast(:accounts as uuid[]), cast(:periods as date[])) as k (account_id, period)
                    on u.account_id = k.account_id and u.period = k.period""")
        List<MonthCount> readMonthUnits(String[] accounts, String[] periods);

        @SqlQuery("""
                select w.account_id, w.window_start, w.used
                  from rate_windows w
                  join unnest(cast(:accounts as uuid[]), cast(:windows as timestamptz[])) as k (account_id, window_start)
                    on w.account_id = k.account_id and w.window_start = k.window_start""")
        List<MinuteCount> readMinuteRequests(String[] accounts, String[] windows);

        @SqlQuery("""
                update usage_counters set alerted_at = :at
                 where account_id = :accountId and period = :period and alerted_at is null and used >= :threshold
                returning used""")
        Optional<Long> markAlerted(Instant at, UUID accountId, LocalDate period, long threshold);

        @SqlQuery("""
                with beat as (
                    insert into metering_instances (id, seen_at) values (:id, now())
                    on conflict (id) do update set seen_at = excluded.seen_at)
                select 1 + count(*) from metering_instances
                 where id <> :id and seen_at > now() - make_interval(secs => :liveness)""")
        int heartbeat(UUID id, double liveness);

        @SqlUpdate("delete from metering_instances where id = :id")
        void leave(UUID id);

        @SqlUpdate("delete from rate_windows where window_start < :before")
        void deleteWindowsBefore(Instant before);

        @SqlUpdate("delete from metering_instances where seen_at < now() - interval '1 day'")
        void deleteGoneInstances();

        @SqlQuery("select used from usage_counters where account_id = :accountId and period = :period")
        Optional<Long> monthUsed(UUID accountId, LocalDate period);
    }
}
