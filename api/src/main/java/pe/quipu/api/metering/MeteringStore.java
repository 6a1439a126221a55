package pe.quipu.api.metering;

import org.jdbi.v3.core.Jdbi;
import pe.quipu.core.accounts.Subscriptions;
import pe.quipu.core.events.EventOutbox;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
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
 * (requests per account and minute) and {@code metering_instances}. Every statement here serves a whole sync of
 * one instance, never one request.
 */
public final class MeteringStore {

    public static final String THRESHOLD_EVENT = "usage.threshold_reached";

    /** Adds each account's new units and answers the month's totals; rows are locked in one order everywhere. */
    private static final String ADD_MONTH_UNITS = """
            insert into usage_counters as u (account_id, period, used)
            select d.account_id, d.period, d.used
              from unnest(?::uuid[], ?::date[], ?::bigint[]) as d (account_id, period, used)
             order by d.account_id, d.period
            on conflict (account_id, period) do update set used = u.used + excluded.used
            returning u.account_id, u.period, u.used, u.alerted_at""";
    private static final String ADD_MINUTE_REQUESTS = """
            insert into rate_windows as w (account_id, window_start, used)
            select d.account_id, d.window_start, d.used
              from unnest(?::uuid[], ?::timestamptz[], ?::integer[]) as d (account_id, window_start, used)
             order by d.account_id, d.window_start
            on conflict (account_id, window_start) do update set used = w.used + excluded.used
            returning w.account_id, w.window_start, w.used""";
    private static final String READ_MONTH_UNITS = """
            select u.account_id, u.period, u.used
              from usage_counters u
              join unnest(?::uuid[], ?::date[]) as k (account_id, period)
                on u.account_id = k.account_id and u.period = k.period""";
    private static final String READ_MINUTE_REQUESTS = """
            select w.account_id, w.window_start, w.used
              from rate_windows w
              join unnest(?::uuid[], ?::timestamptz[]) as k (account_id, window_start)
                on w.account_id = k.account_id and w.window_start = k.window_start""";
    /** Only the first instance to see the threshold crossed in a month marks it, and so emits the event. */
    private static final String MARK_ALERTED = """
            update usage_counters set alerted_at = ?
             where account_id = ? and period = ? and alerted_at is null and used >= ?
            returning used""";

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
     * In one transaction: adds the batch's deltas, reads the totals it asks for, and emits
     * {@code usage.threshold_reached} for each account whose month total has just reached its threshold.
     *
     * @return every total the batch concerns; an absent row is 0
     */
    Map<SyncBatch.Key, Long> sync(SyncBatch batch, Function<UUID, Optional<AlertThreshold>> thresholds)
            throws SQLException {
        Map<SyncBatch.Key, Long> months = batch.deltas(Counter.Kind.MONTH);
        Map<SyncBatch.Key, Long> minutes = batch.deltas(Counter.Kind.MINUTE);
        return jdbi.inTransaction(handle -> {
            Connection c = handle.getConnection();
            Map<SyncBatch.Key, Long> totals = new HashMap<>();
            List<StoredCount> added = add(c, ADD_MONTH_UNITS, nonZero(months));
            add(c, ADD_MINUTE_REQUESTS, nonZero(minutes)).forEach(row -> totals.put(row.key, row.used));
            read(c, READ_MONTH_UNITS, zero(months)).forEach(row -> totals.put(row.key, row.used));
            read(c, READ_MINUTE_REQUESTS, zero(minutes)).forEach(row -> totals.put(row.key, row.used));
            for (StoredCount row : added) {
                totals.put(row.key, row.used);
                if (!row.alerted) {
                    Optional<AlertThreshold> threshold = thresholds.apply(row.key.accountId())
                            .filter(t -> t.limit() > 0 && row.used >= t.units());
                    if (threshold.isPresent()) {
                        alert(c, row.key, threshold.get());
                    }
                }
            }
            return totals;
        });
    }

    /** A stored count as read back: for months, whether its threshold event was already emitted. */
    private record StoredCount(SyncBatch.Key key, long used, boolean alerted) {
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

    private static List<StoredCount> add(Connection c, String sql, Map<SyncBatch.Key, Long> deltas)
            throws SQLException {
        if (deltas.isEmpty()) {
            return List.of();
        }
        List<SyncBatch.Key> keys = new ArrayList<>(deltas.keySet());
        try (PreparedStatement statement = c.prepareStatement(sql)) {
            bindKeys(c, statement, keys);
            Counter.Kind kind = keys.getFirst().kind();
            statement.setArray(3, c.createArrayOf(kind == Counter.Kind.MONTH ? "bigint" : "integer",
                    keys.stream().map(k -> kind == Counter.Kind.MONTH
                            ? (Object) deltas.get(k) : (Object) Math.toIntExact(deltas.get(k))).toArray()));
            return rows(statement, kind);
        }
    }

    private static List<StoredCount> read(Connection c, String sql, List<SyncBatch.Key> keys) throws SQLException {
        if (keys.isEmpty()) {
            return List.of();
        }
        try (PreparedStatement statement = c.prepareStatement(sql)) {
            bindKeys(c, statement, keys);
            return rows(statement, keys.getFirst().kind());
        }
    }

    /** Parameters 1 and 2: the accounts and the buckets (Lima dates for months, instants for minutes). */
    private static void bindKeys(Connection c, PreparedStatement statement, List<SyncBatch.Key> keys)
            throws SQLException {
        statement.setArray(1, c.createArrayOf("uuid", keys.stream().map(SyncBatch.Key::accountId).toArray()));
        statement.setArray(2, c.createArrayOf("text", keys.stream()
                .map(k -> k.kind() == Counter.Kind.MONTH ? period(k.bucket()).toString() : k.bucket().toString())
                .toArray()));
    }

    private static List<StoredCount> rows(PreparedStatement statement, Counter.Kind kind) throws SQLException {
        List<StoredCount> rows = new ArrayList<>();
        try (ResultSet rs = statement.executeQuery()) {
            boolean hasAlerted = rs.getMetaData().getColumnCount() > 3;
            while (rs.next()) {
                UUID account = rs.getObject(1, UUID.class);
                Instant bucket = kind == Counter.Kind.MONTH
                        ? rs.getObject(2, LocalDate.class).atStartOfDay(Subscriptions.LIMA).toInstant()
                        : rs.getObject(2, OffsetDateTime.class).toInstant();
                rows.add(new StoredCount(new SyncBatch.Key(kind, account, bucket), rs.getLong(3),
                        hasAlerted && rs.getObject(4) != null));
            }
        }
        return rows;
    }

    private void alert(Connection c, SyncBatch.Key key, AlertThreshold threshold) throws SQLException {
        LocalDate period = period(key.bucket());
        try (PreparedStatement mark = c.prepareStatement(MARK_ALERTED)) {
            mark.setTimestamp(1, Timestamp.from(clock.instant()));
            mark.setObject(2, key.accountId());
            mark.setObject(3, period);
            mark.setLong(4, threshold.units());
            try (ResultSet rs = mark.executeQuery()) {
                if (!rs.next()) {
                    return;
                }
                Map<String, Object> data = new LinkedHashMap<>();
                data.put("period", YearMonth.from(period).toString());
                data.put("used", rs.getLong(1));
                data.put("limit", threshold.limit());
                data.put("percent", threshold.percent());
                outbox.append(c, THRESHOLD_EVENT, key.accountId(), data);
            }
        }
    }

    /** Says this instance is alive and answers how many are (itself included). */
    int heartbeat(UUID instance, Duration liveness) {
        return jdbi.withHandle(h -> h.createQuery("""
                        with beat as (
                            insert into metering_instances (id, seen_at) values (:id, now())
                            on conflict (id) do update set seen_at = excluded.seen_at)
                        select 1 + count(*) from metering_instances
                         where id <> :id and seen_at > now() - make_interval(secs => :liveness)""")
                .bind("id", instance)
                .bind("liveness", (double) liveness.toSeconds())
                .mapTo(Integer.class)
                .one());
    }

    /** A stopping instance is no longer counted as alive. */
    void leave(UUID instance) {
        jdbi.useHandle(h -> h.createUpdate("delete from metering_instances where id = :id")
                .bind("id", instance)
                .execute());
    }

    /** Deletes minute windows that started before {@code before}, and instances gone for a day. */
    void deleteOldWindows(Instant before) {
        jdbi.useHandle(h -> {
            h.createUpdate("delete from rate_windows where window_start < :before")
                    .bind("before", before)
                    .execute();
            h.createUpdate("delete from metering_instances where seen_at < now() - interval '1 day'").execute();
        });
    }

    long monthUsed(UUID accountId, Instant monthStart) {
        return jdbi.withHandle(h -> h.createQuery(
                        "select used from usage_counters where account_id = :account and period = :period")
                .bind("account", accountId)
                .bind("period", period(monthStart))
                .mapTo(Long.class)
                .findOne()
                .orElse(0L));
    }

    static LocalDate period(Instant monthStart) {
        return LocalDate.ofInstant(monthStart, Subscriptions.LIMA);
    }
}
