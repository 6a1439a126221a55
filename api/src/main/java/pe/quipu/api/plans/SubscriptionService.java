package pe.quipu.api.plans;

import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import pe.quipu.api.domain.LimaCalendar;
import pe.quipu.api.audit.AuditLog;
import pe.quipu.api.domain.DomainException.Conflict;
import pe.quipu.api.domain.DomainException.InvalidInput;
import pe.quipu.api.domain.DomainException.NotFound;
import pe.quipu.api.domain.Text;
import pe.quipu.core.accounts.EmailIdentity;
import pe.quipu.core.events.EventOutbox;

import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * Plan changes, cancellations, and the renewals and cancellations that fall due with time (contract §1 operator
 * tasks, §2 plans). A paid period is a Lima calendar month, like a quota month: a subscription renews at the start
 * of the next one. Each change commits in one transaction with its event ({@code subscription.updated},
 * {@code subscription.canceled}) and its audit row; the {@code subscriptions} trigger then tells every instance's
 * {@link AccountLimitsCache}, and this instance's entry is dropped at once after the commit.
 */
public final class SubscriptionService {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(SubscriptionService.class);

    public static final String UPDATED = "subscription.updated";
    public static final String CANCELED = "subscription.canceled";
    /** Changes nobody asked for at that moment: a renewal, or a cancellation taking effect at the period's end. */
    static final AuditLog.Origin SCHEDULE = new AuditLog.Origin(null, "quipu-schedule");
    private static final int BATCH = 500;

    private final Jdbi jdbi;
    private final Clock clock;
    private final PlanTable plans;
    private final AuditLog audit;
    private final EventOutbox outbox;
    private final AccountLimitsCache limits;

    public SubscriptionService(Jdbi jdbi, Clock clock, PlanTable plans, AuditLog audit, EventOutbox outbox,
                               AccountLimitsCache limits) {
        this.jdbi = jdbi;
        this.clock = clock;
        this.plans = plans;
        this.audit = audit;
        this.outbox = outbox;
        this.limits = limits;
    }

    /** What {@link #setPlan} did: {@code changed} is false when the account already had exactly this. */
    public record PlanChange(Subscription subscription, String previousPlan, boolean changed) {
    }

    /** What {@link #cancel} did: {@code effective} when the account is already back on free. */
    public record Cancellation(Subscription canceled, Instant cancelAt, boolean effective, boolean changed) {
    }

    /** What one {@link #applyDueChanges} run did. */
    public record Applied(int renewed, int canceled, int freeRenewed) {
    }

    /**
     * Puts the account on {@code planName} with these overrides from now on: the current subscription ends, a new one
     * starts (a new id) and renews at the next Lima month; {@code subscription.updated} and {@code plan.changed} say
     * so. The same plan with the same overrides changes nothing, unless a cancellation is scheduled: then it is
     * withdrawn (same subscription, {@code subscription.updated} with plan = previousPlan).
     *
     * @throws InvalidInput for a plan config.yml does not define; NotFound for an email with no live account
     */
    public PlanChange setPlan(String email, String planName, Subscription.Overrides overrides) {
        if (plans.find(planName).isEmpty()) {
            throw new InvalidInput("plan", Text.of("plans.unknown_plan", planName, String.join(", ", planNames())));
        }
        Instant now = now();
        PlanChange change = jdbi.inTransaction(h -> {
            SubscriptionRows rows = h.attach(SubscriptionRows.class);
            UUID accountId = lockAccount(rows, email);
            Optional<Subscription> current = rows.current(accountId);
            if (current.isPresent() && current.get().plan().equals(planName)
                    && current.get().overrides().equals(overrides)) {
                Subscription same = current.get();
                if (same.cancelAt() == null) {
                    return new PlanChange(same, same.plan(), false);
                }
                rows.setCancelAt(same.id(), null);
                Subscription resumed = same.withCancelAt(null);
                announceUpdate(h, resumed, same.plan());
                audit.record(h, accountId, "subscription.resumed", AuditLog.Origin.OPERATOR,
                        Map.of("subscriptionId", same.id(), "plan", same.plan()));
                return new PlanChange(resumed, same.plan(), true);
            }
            // An account without a current subscription should not exist; set-plan gives it one.
            String previousPlan = current.map(Subscription::plan).orElse(Subscriptions.FREE);
            current.ifPresent(s -> rows.end(s.id(), now));
            Subscription opened = rows.open(accountId, planName, overrides, now);
            announceUpdate(h, opened, previousPlan);
            Map<String, Object> details = new LinkedHashMap<>();
            details.put("plan", planName);
            details.put("previousPlan", previousPlan);
            details.put("monthlyQuota", opened.effectiveMonthlyQuota(plans));
            details.put("rateLimitRpm", opened.effectiveRateLimitRpm(plans));
            audit.record(h, accountId, "plan.changed", AuditLog.Origin.OPERATOR, details);
            return new PlanChange(opened, previousPlan, true);
        });
        limits.evict(change.subscription().accountId());
        return change;
    }

    /**
     * Cancels the account's paid subscription at the end of its paid period ({@code renews_at}), or now when
     * {@code immediate}. Scheduling announces nothing; {@code subscription.canceled} is emitted when the
     * cancellation takes effect, and the account is then on a new free subscription. Asking again for a scheduled
     * cancellation changes nothing.
     *
     * @throws NotFound for an email with no live account; Conflict when the account is on the free plan
     */
    public Cancellation cancel(String email, boolean immediate) {
        Instant now = now();
        Cancellation cancellation = jdbi.inTransaction(h -> {
            SubscriptionRows rows = h.attach(SubscriptionRows.class);
            UUID accountId = lockAccount(rows, email);
            Subscription current = rows.current(accountId)
                    .filter(s -> !Subscriptions.FREE.equals(s.plan()))
                    .orElseThrow(() -> new Conflict(Text.of("plans.cancel.on_free")));
            if (immediate) {
                endWithCancellation(h, current, now, AuditLog.Origin.OPERATOR);
                return new Cancellation(current, now, true, true);
            }
            if (current.cancelAt() != null) {
                return new Cancellation(current, current.cancelAt(), false, false);
            }
            rows.setCancelAt(current.id(), current.renewsAt());
            audit.record(h, accountId, "subscription.cancel_scheduled", AuditLog.Origin.OPERATOR,
                    Map.of("subscriptionId", current.id(), "plan", current.plan(),
                            "cancelAt", current.renewsAt().toString()));
            return new Cancellation(current.withCancelAt(current.renewsAt()), current.renewsAt(), false, true);
        });
        limits.evict(cancellation.canceled().accountId());
        return cancellation;
    }

    /** {@link #applyDueChanges()}, saying in the log what changed; the application runs it on a schedule. */
    public void applyDueChangesAndLog() {
        Applied applied = applyDueChanges();
        if (applied.renewed() + applied.canceled() > 0) {
            LOG.info("Subscriptions: {} renewed, {} canceled", applied.renewed(), applied.canceled());
        }
    }

    /**
     * Applies every change due by the clock: scheduled cancellations take effect, paid subscriptions renew (one
     * paid period, one {@code subscription.updated}, per run of this loop), free ones move to the next month in
     * silence. Safe to run on several instances at once and to repeat: each account is changed under its lock and
     * only while its change is still due, so each change happens, and is announced, once.
     */
    public Applied applyDueChanges() {
        Instant now = now();
        // Free ones first, in bulk: at a month start they are most of what is due, and the paid ones' query skips them.
        int freeRenewed = renewFree(now);
        int renewed = 0;
        int canceled = 0;
        boolean progress = true;
        while (progress) {
            progress = false;
            List<UUID> due = jdbi.withHandle(h -> h.attach(SubscriptionRows.class)
                    .accountsDue(now, Subscriptions.FREE, BATCH));
            for (UUID accountId : due) {
                Due done = applyDue(accountId, now);
                if (done == Due.NOTHING) {
                    continue;
                }
                if (done == Due.RENEWED) {
                    renewed++;
                } else {
                    canceled++;
                }
                limits.evict(accountId);
                progress = true;
            }
        }
        if (canceled > 0) {
            // A cancellation that took effect long ago opens a free subscription that may itself be due already.
            freeRenewed += renewFree(now);
        }
        return new Applied(renewed, canceled, freeRenewed);
    }

    /** Due free subscriptions move straight to the next Lima month after {@code now}, in batches, announced nowhere. */
    private int renewFree(Instant now) {
        Instant next = LimaCalendar.nextMonthStart(now);
        int total = 0;
        int moved;
        do {
            moved = jdbi.inTransaction(h -> h.attach(SubscriptionRows.class)
                    .renewFree(now, next, Subscriptions.FREE, BATCH));
            total += moved;
        } while (moved == BATCH);
        return total;
    }

    private enum Due { RENEWED, CANCELED, NOTHING }

    /** One account's due change, in its own transaction; NOTHING when another instance holds it or it is no longer due. */
    private Due applyDue(UUID accountId, Instant now) {
        return jdbi.inTransaction(h -> {
            SubscriptionRows rows = h.attach(SubscriptionRows.class);
            if (rows.tryLockAccount(accountId).isEmpty()) {
                return Due.NOTHING;
            }
            Optional<Subscription> current = rows.current(accountId);
            if (current.isEmpty() || current.get().renewsAt().isAfter(now)) {
                return Due.NOTHING;
            }
            Subscription s = current.get();
            if (s.cancelAt() != null && !s.cancelAt().isAfter(now)) {
                // Recorded at the instant the paid period ended, not when this run noticed.
                endWithCancellation(h, s, s.cancelAt(), SCHEDULE);
                return Due.CANCELED;
            }
            if (Subscriptions.FREE.equals(s.plan())) {
                return Due.NOTHING; // renewFree's; not announced
            }
            // renews_at is a Lima month start, so the next one is exactly one paid period later.
            Subscription renewed = s.withRenewsAt(LimaCalendar.nextMonthStart(s.renewsAt()));
            rows.setRenewsAt(s.id(), renewed.renewsAt());
            announceUpdate(h, renewed, s.plan());
            return Due.RENEWED;
        });
    }

    private void endWithCancellation(Handle h, Subscription s, Instant at, AuditLog.Origin origin) {
        SubscriptionRows rows = h.attach(SubscriptionRows.class);
        rows.end(s.id(), at);
        rows.open(s.accountId(), Subscriptions.FREE, Subscription.Overrides.NONE, at);
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("subscriptionId", s.id());
        data.put("plan", s.plan());
        data.put("canceledAt", at.toString());
        outbox.append(h, CANCELED, s.accountId(), data);
        audit.record(h, s.accountId(), "subscription.canceled", origin,
                Map.of("subscriptionId", s.id(), "plan", s.plan()));
    }

    /** subscription.updated, whose data is exactly the spec's {subscriptionId, plan, previousPlan, renewsAt}. */
    private void announceUpdate(Handle h, Subscription s, String previousPlan) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("subscriptionId", s.id());
        data.put("plan", s.plan());
        data.put("previousPlan", previousPlan);
        data.put("renewsAt", s.renewsAt().toString());
        outbox.append(h, UPDATED, s.accountId(), data);
    }

    /** PostgreSQL keeps microseconds: events and answers show the instant the rows hold. */
    private Instant now() {
        return clock.instant().truncatedTo(ChronoUnit.MICROS);
    }

    private static UUID lockAccount(SubscriptionRows rows, String email) {
        return rows.lockAccount(email, EmailIdentity.of(email))
                .orElseThrow(() -> new NotFound(Text.of("domain.account.no_email", email)));
    }

    /** The plans an operator may choose, for messages. */
    private List<String> planNames() {
        return plans.all().keySet().stream().sorted().toList();
    }
}
