package pe.quipu.api.plans;

import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.mapper.RowMapper;
import pe.quipu.core.accounts.Subscriptions;

import java.sql.Timestamp;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Every statement {@link SubscriptionService} runs, on the caller's handle and transaction.
 *
 * <p>Locking: whoever changes an account's subscription rows first locks the account row ({@code for no key update}:
 * it does not block the foreign-key check of the subscription inserted meanwhile), then its current subscription.
 * Two changes to one account therefore run one after the other, and the second one reads what the first committed.
 */
final class SubscriptionRows {

    private static final RowMapper<Subscription> SUBSCRIPTION = (rs, ctx) -> new Subscription(
            rs.getString("id"),
            rs.getObject("account_id", UUID.class),
            rs.getString("plan"),
            rs.getObject("monthly_quota") == null ? null : rs.getLong("monthly_quota"),
            rs.getObject("rate_limit_rpm") == null ? null : rs.getInt("rate_limit_rpm"),
            instant(rs.getObject("started_at", OffsetDateTime.class)),
            instant(rs.getObject("renews_at", OffsetDateTime.class)),
            instant(rs.getObject("cancel_at", OffsetDateTime.class)));

    private SubscriptionRows() {
    }

    /** Locks the live account with this email (case-insensitive), waiting for whoever holds it. */
    static Optional<UUID> lockAccount(Handle h, String email) {
        return h.createQuery("""
                        select id from accounts where lower(email) = lower(:email) and deleted_at is null
                           for no key update""")
                .bind("email", email)
                .mapTo(UUID.class)
                .findOne();
    }

    /** Locks the live account unless another transaction holds it (then that one is changing it: leave it be). */
    static boolean tryLockAccount(Handle h, UUID accountId) {
        return h.createQuery("""
                        select id from accounts where id = :id and deleted_at is null
                           for no key update skip locked""")
                .bind("id", accountId)
                .mapTo(UUID.class)
                .findOne()
                .isPresent();
    }

    /** The account's current subscription, locked. Call with the account locked. */
    static Optional<Subscription> current(Handle h, UUID accountId) {
        return h.createQuery("""
                        select id, account_id, plan, monthly_quota, rate_limit_rpm, started_at, renews_at, cancel_at
                          from subscriptions where account_id = :account and ended_at is null
                           for update""")
                .bind("account", accountId)
                .map(SUBSCRIPTION)
                .findOne();
    }

    /** Opens the account's new current subscription (end the previous one first); it renews at the next Lima month. */
    static Subscription open(Handle h, UUID accountId, String plan, Subscription.Overrides overrides, Instant startedAt) {
        Subscription opened = new Subscription(Subscriptions.newId(), accountId, plan, overrides.monthlyQuota(),
                overrides.rateLimitRpm(), startedAt, Subscriptions.nextMonthStart(startedAt), null);
        h.createUpdate("""
                        insert into subscriptions (id, account_id, plan, monthly_quota, rate_limit_rpm, started_at, renews_at)
                        values (:id, :account, :plan, :quota, :rpm, :started, :renews)""")
                .bind("id", opened.id())
                .bind("account", accountId)
                .bind("plan", plan)
                .bindByType("quota", opened.monthlyQuota(), Long.class)
                .bindByType("rpm", opened.rateLimitRpm(), Integer.class)
                .bind("started", Timestamp.from(startedAt))
                .bind("renews", Timestamp.from(opened.renewsAt()))
                .execute();
        return opened;
    }

    static void end(Handle h, String subscriptionId, Instant at) {
        h.createUpdate("update subscriptions set ended_at = :at where id = :id and ended_at is null")
                .bind("id", subscriptionId)
                .bind("at", Timestamp.from(at))
                .execute();
    }

    /** Schedules (a time) or withdraws (null) the subscription's cancellation. */
    static void setCancelAt(Handle h, String subscriptionId, Instant at) {
        h.createUpdate("update subscriptions set cancel_at = :at where id = :id")
                .bind("id", subscriptionId)
                .bind("at", at == null ? null : Timestamp.from(at))
                .execute();
    }

    static void setRenewsAt(Handle h, String subscriptionId, Instant at) {
        h.createUpdate("update subscriptions set renews_at = :at where id = :id")
                .bind("id", subscriptionId)
                .bind("at", Timestamp.from(at))
                .execute();
    }

    /**
     * Accounts whose current subscription has a change due at {@code now} that announces something: a paid renewal or
     * a cancellation. A scheduled cancellation is at {@code renews_at}, so the index on it finds both.
     */
    static List<UUID> accountsDue(Handle h, Instant now, int limit) {
        return h.createQuery("""
                        select s.account_id
                          from subscriptions s join accounts a on a.id = s.account_id
                         where s.ended_at is null and s.renews_at <= :now
                           and (s.plan <> :free or s.cancel_at is not null)
                           and a.deleted_at is null
                         order by s.renews_at
                         limit :limit""")
                .bind("now", Timestamp.from(now))
                .bind("free", Subscriptions.FREE)
                .bind("limit", limit)
                .mapTo(UUID.class)
                .list();
    }

    /**
     * Moves up to {@code limit} due free subscriptions to renew at {@code next}; rows another transaction holds are
     * left to it. Returns how many moved. Nothing is announced for a free renewal.
     */
    static int renewFree(Handle h, Instant now, Instant next, int limit) {
        return h.createUpdate("""
                        update subscriptions set renews_at = :next
                         where id in (select id from subscriptions
                                       where ended_at is null and renews_at <= :now
                                         and plan = :free and cancel_at is null
                                       limit :limit
                                         for update skip locked)""")
                .bind("now", Timestamp.from(now))
                .bind("next", Timestamp.from(next))
                .bind("free", Subscriptions.FREE)
                .bind("limit", limit)
                .execute();
    }

    private static Instant instant(OffsetDateTime at) {
        return at == null ? null : at.toInstant();
    }
}
