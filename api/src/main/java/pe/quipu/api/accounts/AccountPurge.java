package pe.quipu.api.accounts;

import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * The purge (the spec's "soft-deleted → purged"; contract §8): accounts deleted {@link #WINDOW} ago or more are
 * physically removed with every row that still refers to them. Runs daily on every instance and on demand
 * ({@code purge-deleted}); accounts are taken with {@code FOR UPDATE SKIP LOCKED}, so instances running it at once
 * never purge one account twice, and a second run finds nothing left. The audit rows stay, anonymised at deletion.
 */
public final class AccountPurge {

    public static final Duration WINDOW = Duration.ofDays(30);
    public static final Duration FIRST_DELAY = Duration.ofMinutes(5);
    public static final Duration EVERY = Duration.ofDays(1);
    private static final Logger LOG = LoggerFactory.getLogger(AccountPurge.class);
    private static final int BATCH = 100;

    private final Jdbi jdbi;
    private final Clock clock;

    public AccountPurge(Jdbi jdbi, Clock clock) {
        this.jdbi = jdbi;
        this.clock = clock;
    }

    /** Purges every account whose deletion is {@link #WINDOW} old or more; returns how many. */
    public int purge() {
        Instant cutoff = clock.instant().minus(WINDOW);
        int total = 0;
        int purged;
        do {
            purged = jdbi.inTransaction(h -> {
                Rows rows = h.attach(Rows.class);
                List<UUID> ids = rows.due(cutoff, BATCH);
                if (ids.isEmpty()) {
                    return 0;
                }
                String[] accounts = ids.stream().map(UUID::toString).toArray(String[]::new);
                // Webhook endpoints take their subscriptions, deliveries and attempts with them (on delete cascade).
                rows.deleteEndpoints(accounts);
                // Watchlists take their RUCs with them (on delete cascade).
                rows.deleteWatchlists(accounts);
                rows.deleteEvents(accounts);
                rows.deleteKeys(accounts);
                rows.deleteSubscriptions(accounts);
                rows.deleteUsage(accounts);
                rows.deleteUsageDays(accounts);
                rows.deleteRateWindows(accounts);
                rows.deleteSessions(accounts);
                rows.detachAudit(accounts);
                return rows.deleteAccounts(accounts);
            });
            total += purged;
        } while (purged == BATCH);
        return total;
    }

    /** {@link #purge()} for the daily schedule: logs what it did. */
    public void purgeAndLog() {
        int purged = purge();
        if (purged > 0) {
            LOG.info("Purged {} accounts deleted {} days ago or more", purged, WINDOW.toDays());
        }
    }

    interface Rows {
        @SqlQuery("""
                select id from accounts where deleted_at <= :cutoff
                 order by deleted_at limit :limit
                   for update skip locked""")
        List<UUID> due(Instant cutoff, int limit);

        @SqlUpdate("delete from webhook_endpoints where account_id = any(cast(:accounts as uuid[]))")
        void deleteEndpoints(String[] accounts);

        @SqlUpdate("delete from watchlists where account_id = any(cast(:accounts as uuid[]))")
        void deleteWatchlists(String[] accounts);

        @SqlUpdate("delete from events where account_id = any(cast(:accounts as uuid[]))")
        void deleteEvents(String[] accounts);

        @SqlUpdate("delete from api_keys where account_id = any(cast(:accounts as uuid[]))")
        void deleteKeys(String[] accounts);

        @SqlUpdate("delete from subscriptions where account_id = any(cast(:accounts as uuid[]))")
        void deleteSubscriptions(String[] accounts);

        @SqlUpdate("delete from usage_counters where account_id = any(cast(:accounts as uuid[]))")
        void deleteUsage(String[] accounts);

        @SqlUpdate("delete from usage_days where account_id = any(cast(:accounts as uuid[]))")
        void deleteUsageDays(String[] accounts);

        @SqlUpdate("delete from rate_windows where account_id = any(cast(:accounts as uuid[]))")
        void deleteRateWindows(String[] accounts);

        @SqlUpdate("delete from sessions where account_id = any(cast(:accounts as uuid[]))")
        void deleteSessions(String[] accounts);

        /** Anonymised at deletion already; this holds for rows written between the deletion and the purge. */
        @SqlUpdate("""
                update audit_log set account_id = null, ip = null, user_agent = null, details = '{}'::jsonb
                 where account_id = any(cast(:accounts as uuid[]))""")
        void detachAudit(String[] accounts);

        @SqlUpdate("delete from accounts where id = any(cast(:accounts as uuid[]))")
        int deleteAccounts(String[] accounts);
    }
}
