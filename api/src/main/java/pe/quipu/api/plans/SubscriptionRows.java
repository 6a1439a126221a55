package pe.quipu.api.plans;

import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.customizer.BindMethods;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;
import pe.quipu.api.domain.LimaCalendar;
import pe.quipu.core.accounts.EmailIdentity;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Every statement on {@code subscriptions}, on the caller's handle and transaction.
 *
 * <p>Locking: whoever changes an account's subscription rows first locks the account row ({@code for no key update}:
 * it does not block the foreign-key check of the subscription inserted meanwhile), then its current subscription.
 * Two changes to one account therefore run one after the other, and the second one reads what the first committed.
 */
@RegisterConstructorMapper(Subscription.class)
interface SubscriptionRows {

    /** Locks the live account with this email (by its {@link EmailIdentity}), waiting for whoever holds it. */
    @SqlQuery("select id from accounts where " + EmailIdentity.MATCHES + " and deleted_at is null"
            + EmailIdentity.EXACT_FIRST + " for no key update")
    Optional<UUID> lockAccount(String email, String identity);

    /** Locks the live account unless another transaction holds it (then that one is changing it: leave it be). */
    @SqlQuery("""
            select id from accounts where id = :id and deleted_at is null
               for no key update skip locked""")
    Optional<UUID> tryLockAccount(UUID id);

    /** The account's current subscription, locked. Call with the account locked. */
    @SqlQuery("""
            select id, account_id, plan, monthly_quota, rate_limit_rpm, started_at, renews_at, cancel_at
              from subscriptions where account_id = :accountId and ended_at is null
               for update""")
    Optional<Subscription> current(UUID accountId);

    /** What an account's limits are read from: its current subscription and its alert threshold. */
    record CurrentPlan(String id, String plan, Long monthlyQuota, Integer rateLimitRpm, Instant renewsAt,
                       int usageAlertPercent) {
    }

    /** The live account's current subscription, without locking: what {@link AccountLimitsCache} loads. */
    @SqlQuery("""
            select s.id, s.plan, s.monthly_quota, s.rate_limit_rpm, s.renews_at, a.usage_alert_percent
              from subscriptions s join accounts a on a.id = s.account_id
             where s.account_id = :accountId and s.ended_at is null and a.deleted_at is null""")
    @RegisterConstructorMapper(CurrentPlan.class)
    Optional<CurrentPlan> currentPlan(UUID accountId);

    /** Opens the account's new current subscription (end the previous one first); it renews at the next Lima month. */
    default Subscription open(UUID accountId, String plan, Subscription.Overrides overrides, Instant startedAt) {
        Subscription opened = new Subscription(Subscriptions.newId(), accountId, plan, overrides.monthlyQuota(),
                overrides.rateLimitRpm(), startedAt, LimaCalendar.nextMonthStart(startedAt), null);
        insert(opened);
        return opened;
    }

    @SqlUpdate("""
            insert into subscriptions (id, account_id, plan, monthly_quota, rate_limit_rpm, started_at, renews_at)
            values (:id, :accountId, :plan, :monthlyQuota, :rateLimitRpm, :startedAt, :renewsAt)""")
    void insert(@BindMethods Subscription subscription);

    @SqlUpdate("update subscriptions set ended_at = :at where id = :id and ended_at is null")
    void end(String id, Instant at);

    /** Schedules (a time) or withdraws (null) the subscription's cancellation. */
    @SqlUpdate("update subscriptions set cancel_at = :at where id = :id")
    void setCancelAt(String id, Instant at);

    @SqlUpdate("update subscriptions set renews_at = :at where id = :id")
    void setRenewsAt(String id, Instant at);

    /**
     * Accounts whose current subscription has a change due at {@code now} that announces something: a paid renewal or
     * a cancellation. A scheduled cancellation is at {@code renews_at}, so the index on it finds both.
     */
    @SqlQuery("""
            select s.account_id
              from subscriptions s join accounts a on a.id = s.account_id
             where s.ended_at is null and s.renews_at <= :now
               and (s.plan <> :free or s.cancel_at is not null)
               and a.deleted_at is null
             order by s.renews_at
             limit :limit""")
    List<UUID> accountsDue(Instant now, String free, int limit);

    /**
     * Moves up to {@code limit} due free subscriptions to renew at {@code next}; rows another transaction holds are
     * left to it. Returns how many moved. Nothing is announced for a free renewal.
     */
    @SqlUpdate("""
            update subscriptions set renews_at = :next
             where id in (select id from subscriptions
                           where ended_at is null and renews_at <= :now
                             and plan = :free and cancel_at is null
                           limit :limit
                             for update skip locked)""")
    int renewFree(Instant now, Instant next, String free, int limit);
}
