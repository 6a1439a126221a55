package pe.quipu.api.webhooks;

import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.transaction.TransactionIsolationLevel;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.customizer.Bind;
import org.jdbi.v3.sqlobject.statement.SqlBatch;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;
import pe.quipu.api.audit.AuditLog;
import pe.quipu.api.domain.DomainException.Conflict;
import pe.quipu.api.domain.DomainException.InvalidInput;
import pe.quipu.api.domain.DomainException.NotFound;
import pe.quipu.api.domain.DomainException.PlanForbids;
import pe.quipu.api.domain.DomainException.Unauthenticated;
import pe.quipu.api.domain.Text;
import pe.quipu.api.plans.AccountLimitsCache;
import pe.quipu.core.events.EventOutbox;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * An account's webhook endpoints (the spec's "Webhooks", contract §6): create, read, update, delete, rotate the secret,
 * send a test event, and read or retry deliveries. Each change writes its audit row in the same transaction. A URL is
 * checked and its address pinned whenever it is set.
 */
public final class WebhookEndpoints {

    private final Jdbi jdbi;
    private final Clock clock;
    private final WebhookUrls urls;
    private final AccountLimitsCache limits;
    private final EventOutbox outbox;
    private final DeliveryStore deliveries;
    private final AuditLog audit;
    private final Duration rotationGrace;

    WebhookEndpoints(Jdbi jdbi, Clock clock, WebhookUrls urls, AccountLimitsCache limits, EventOutbox outbox,
                     DeliveryStore deliveries, AuditLog audit, Duration rotationGrace) {
        this.jdbi = jdbi;
        this.clock = clock;
        this.urls = urls;
        this.limits = limits;
        this.outbox = outbox;
        this.deliveries = deliveries;
        this.audit = audit;
        this.rotationGrace = rotationGrace;
    }

    /** What a create or update asks for; null members are left as they are (update) or defaulted (create). */
    public record Changes(String url, Set<String> events, Boolean active) {
    }

    public List<EndpointView> list(UUID accountId) {
        return jdbi.withHandle(h -> h.attach(EndpointRows.class).list(accountId, clock.instant()));
    }

    public EndpointView get(UUID accountId, UUID id) {
        return jdbi.withHandle(h -> view(h, accountId, id));
    }

    /**
     * A new endpoint, with its secret (shown this once). What can refuse it without DNS (the plan's cap, the events) is
     * checked before the URL's host is resolved, and again, under the account's lock, after.
     */
    public EndpointView create(UUID accountId, Changes changes, AuditLog.Origin origin) {
        jdbi.useHandle(h -> {
            EndpointRows rows = h.attach(EndpointRows.class);
            boolean admin = rows.isAdmin(accountId)
                    .orElseThrow(() -> new Unauthenticated(Text.of("webhooks.account_gone")));
            int cap = cap(accountId);
            if (cap == 0 || rows.count(accountId) >= cap) {
                throw new PlanForbids(capDetail(cap));
            }
            checkEvents(changes.events(), admin);
        });
        Pinned pinned = pin(changes.url());
        return jdbi.inTransaction(h -> {
            EndpointRows rows = h.attach(EndpointRows.class);
            boolean admin = lockAccount(rows, accountId);
            checkEvents(changes.events(), admin);
            int cap = cap(accountId);
            if (rows.count(accountId) >= cap) {
                throw new PlanForbids(capDetail(cap));
            }
            UUID id = UUID.randomUUID();
            Instant now = clock.instant();
            String secret = Signatures.newSecret();
            boolean active = changes.active() == null || changes.active();
            rows.insert(id, accountId, pinned.url(), pinned.host(), pinned.port(), pinned.address(), active, secret,
                    now);
            subscribe(rows, id, changes.events());
            audit.record(h, accountId, "webhook.created", origin, details(id, pinned.url(), changes.events(), active));
            return view(h, accountId, id).withSecret(secret);
        });
    }

    /**
     * Changes what {@code changes} names. A new URL's host is resolved only for an endpoint of the account, on a plan
     * that includes endpoints: an account without webhooks makes no lookup.
     */
    public EndpointView update(UUID accountId, UUID id, Changes changes, AuditLog.Origin origin) {
        if (changes.url() != null) {
            get(accountId, id);
            int cap = cap(accountId);
            if (cap == 0) {
                throw new PlanForbids(capDetail(cap));
            }
        }
        Pinned pinned = changes.url() == null ? null : pin(changes.url());
        return jdbi.inTransaction(h -> {
            EndpointRows rows = h.attach(EndpointRows.class);
            boolean admin = lockAccount(rows, accountId);
            EndpointView before = view(h, accountId, id);
            if (changes.events() != null) {
                checkEvents(changes.events(), admin);
            }
            Instant now = clock.instant();
            if (pinned != null) {
                rows.updateUrl(id, pinned.url(), pinned.host(), pinned.port(), pinned.address(), now);
            }
            if (changes.events() != null) {
                rows.unsubscribeOthers(id, changes.events().toArray(String[]::new));
                subscribe(rows, id, changes.events());
                rows.touch(id, now);
            }
            if (changes.active() != null && changes.active() != before.active()) {
                if (changes.active()) {
                    int cap = cap(accountId);
                    if (rows.countActive(accountId) >= cap) {
                        throw new PlanForbids(cap == 0 ? capDetail(cap)
                                : Text.of(cap == 1 ? "webhooks.plan.active_one" : "webhooks.plan.active_many", cap));
                    }
                }
                rows.setActive(id, changes.active(), now);
            }
            Map<String, Object> details = new LinkedHashMap<>();
            details.put("webhookId", id.toString());
            if (pinned != null) {
                details.put("url", pinned.url());
            }
            if (changes.events() != null) {
                details.put("events", changes.events().stream().sorted().toList());
            }
            if (changes.active() != null) {
                details.put("active", changes.active());
            }
            audit.record(h, accountId, "webhook.updated", origin, details);
            return view(h, accountId, id);
        });
    }

    /** Deletes the endpoint with its deliveries: nothing more is sent to it. */
    public void delete(UUID accountId, UUID id, AuditLog.Origin origin) {
        jdbi.useTransaction(h -> {
            EndpointRows rows = h.attach(EndpointRows.class);
            lockAccount(rows, accountId);
            String url = rows.delete(accountId, id).orElseThrow(WebhookEndpoints::notFound);
            audit.record(h, accountId, "webhook.deleted", origin, Map.of("webhookId", id.toString(), "url", url));
        });
    }

    /** A new secret; the current one keeps signing ({@code v0}) for the rotation grace. */
    public EndpointView rotate(UUID accountId, UUID id, AuditLog.Origin origin) {
        return jdbi.inTransaction(h -> {
            EndpointRows rows = h.attach(EndpointRows.class);
            lockAccount(rows, accountId);
            view(h, accountId, id);
            String secret = Signatures.newSecret();
            Instant now = clock.instant();
            rows.rotate(id, secret, now.plus(rotationGrace), now);
            audit.record(h, accountId, "webhook.rotated", origin, Map.of("webhookId", id.toString(),
                    "previousSecretExpiresAt", now.plus(rotationGrace).toString()));
            return view(h, accountId, id).withSecret(secret);
        });
    }

    /** The answer to a test: the event and the one delivery that carries it to this endpoint. */
    public record TestSent(String eventId, String deliveryId) {
    }

    /**
     * An {@code endpoint.test} event delivered to this endpoint alone (whatever it subscribes to), like any other
     * event. An inactive endpoint is sent nothing: {@link Conflict}.
     */
    public TestSent test(UUID accountId, UUID id) {
        return jdbi.inTransaction(h -> {
            EndpointRows rows = h.attach(EndpointRows.class);
            lockAccount(rows, accountId);
            EndpointView endpoint = view(h, accountId, id);
            if (!endpoint.active()) {
                throw new Conflict(Text.of("webhooks.inactive.test"));
            }
            Instant now = clock.instant();
            Map<String, Object> data = new LinkedHashMap<>();
            data.put("webhookId", id.toString());
            data.put("url", endpoint.url());
            EventOutbox.Event event = outbox.append(h, EventTypes.ENDPOINT_TEST, accountId, data);
            String deliveryId = deliveries.deliverNow(h, id, event.id(), event.type(), event.createdAt(), data, now);
            return new TestSent(event.id(), deliveryId);
        });
    }

    /** The endpoint's most recent deliveries, newest first, at most {@code limit}. */
    public List<DeliveryView> deliveries(UUID accountId, UUID id, int limit) {
        return jdbi.withHandle(h -> {
            view(h, accountId, id);
            return h.attach(EndpointRows.class).deliveries(id, limit).stream()
                    .map(EndpointRows.DeliveryRow::view).toList();
        });
    }

    /**
     * The record and its attempts from one snapshot: read apart, an attempt recorded in between would show in the log
     * of a record still saying it was not attempted.
     */
    public DeliveryView delivery(UUID accountId, UUID id, String deliveryId) {
        return jdbi.inTransaction(TransactionIsolationLevel.REPEATABLE_READ, h -> {
            view(h, accountId, id);
            EndpointRows rows = h.attach(EndpointRows.class);
            return rows.delivery(id, deliveryId).orElseThrow(() -> new NotFound(Text.of("webhooks.delivery_not_found")))
                    .view().withAttempts(rows.attempts(deliveryId));
        });
    }

    /**
     * A fresh series of attempts, the first now, following the retry schedule again. {@link Conflict} while an
     * attempt of this delivery is under way, or while the endpoint is inactive (nothing would be sent).
     */
    public DeliveryView retry(UUID accountId, UUID id, String deliveryId, AuditLog.Origin origin) {
        return jdbi.inTransaction(h -> {
            EndpointRows rows = h.attach(EndpointRows.class);
            EndpointView endpoint = view(h, accountId, id);
            Instant now = clock.instant();
            if (!endpoint.active()) {
                throw new Conflict(Text.of("webhooks.inactive.retry"));
            }
            Instant lease = rows.lockDelivery(id, deliveryId)
                    .orElseThrow(() -> new NotFound(Text.of("webhooks.delivery_not_found"))).leaseUntil();
            if (lease != null && lease.isAfter(now)) {
                throw new Conflict(Text.of("webhooks.delivery_under_way"));
            }
            rows.restart(deliveryId, now);
            h.execute("select pg_notify(?, 'retry')", DeliveryWorker.CHANNEL);
            audit.record(h, accountId, "webhook.delivery_retried", origin,
                    Map.of("webhookId", id.toString(), "deliveryId", deliveryId));
            return rows.delivery(id, deliveryId).orElseThrow().view();
        });
    }

    private Pinned pin(String url) {
        return switch (urls.check(url)) {
            case WebhookUrls.Check.Accepted a ->
                    new Pinned(a.uri().toString(), a.host(), a.port(), a.pinned().getHostAddress());
            case WebhookUrls.Check.Refused r -> throw new InvalidInput("url", r.reason());
        };
    }

    private record Pinned(String url, String host, int port, String address) {
    }

    private static void checkEvents(Set<String> events, boolean admin) {
        for (String type : events) {
            if (!EventTypes.known(type)) {
                throw new InvalidInput("events", Text.of("webhooks.events.unknown", type,
                        String.join(", ", EventTypes.ALL)));
            }
            if (EventTypes.adminOnly(type) && !admin) {
                throw new InvalidInput("events", Text.of("webhooks.events.admin_only", type));
            }
        }
    }

    private int cap(UUID accountId) {
        return limits.get(accountId).map(l -> l.webhookEndpoints()).orElse(0);
    }

    private static Text capDetail(int cap) {
        return cap == 0 ? Text.of("webhooks.plan.none")
                : Text.of(cap == 1 ? "webhooks.plan.cap_one" : "webhooks.plan.cap_many", cap);
    }

    private static void subscribe(EndpointRows rows, UUID id, Set<String> events) {
        long since = rows.lastEventSeq();
        rows.subscribe(id, events.stream().sorted().toList(), since);
    }

    private EndpointView view(Handle h, UUID accountId, UUID id) {
        return h.attach(EndpointRows.class).get(accountId, id, clock.instant()).orElseThrow(WebhookEndpoints::notFound);
    }

    private static boolean lockAccount(EndpointRows rows, UUID accountId) {
        return rows.lockAccount(accountId)
                .orElseThrow(() -> new Unauthenticated(Text.of("webhooks.account_gone")));
    }

    private static Map<String, Object> details(UUID id, String url, Set<String> events, boolean active) {
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("webhookId", id.toString());
        details.put("url", url);
        details.put("events", events.stream().sorted().toList());
        details.put("active", active);
        return details;
    }

    private static NotFound notFound() {
        return new NotFound(Text.of("webhooks.endpoint_not_found"));
    }

    interface EndpointRows {
        String VIEW = """
                select w.id, w.url,
                       coalesce(array_agg(s.event_type order by s.event_type)
                                filter (where s.event_type is not null), '{}') as events,
                       w.active, w.disabled_reason, w.created_at, w.updated_at,
                       case when w.previous_secret_until > :now then w.previous_secret_until end
                           as previous_secret_expires_at,
                       null as secret
                  from webhook_endpoints w
                  left join webhook_subscriptions s on s.endpoint_id = w.id
                """;

        @SqlQuery(VIEW + " where w.account_id = :accountId group by w.id order by w.created_at, w.id")
        @RegisterConstructorMapper(EndpointView.class)
        List<EndpointView> list(UUID accountId, Instant now);

        @SqlQuery(VIEW + " where w.account_id = :accountId and w.id = :id group by w.id")
        @RegisterConstructorMapper(EndpointView.class)
        Optional<EndpointView> get(UUID accountId, UUID id, Instant now);

        /** Serialises an account's endpoint changes (the plan's cap); says whether it has admin rights. */
        @SqlQuery("select is_admin from accounts where id = :accountId and deleted_at is null for update")
        Optional<Boolean> lockAccount(UUID accountId);

        @SqlQuery("select is_admin from accounts where id = :accountId and deleted_at is null")
        Optional<Boolean> isAdmin(UUID accountId);

        @SqlQuery("select count(*) from webhook_endpoints where account_id = :accountId")
        int count(UUID accountId);

        @SqlQuery("select count(*) from webhook_endpoints where account_id = :accountId and active")
        int countActive(UUID accountId);

        @SqlQuery("select coalesce(max(seq), 0) from events")
        long lastEventSeq();

        @SqlUpdate("""
                insert into webhook_endpoints (id, account_id, url, host, port, pinned_address, active, secret,
                                               created_at, updated_at)
                values (:id, :accountId, :url, :host, :port, cast(:address as inet), :active, :secret, :now, :now)""")
        void insert(UUID id, UUID accountId, String url, String host, int port, String address, boolean active,
                    String secret, Instant now);

        @SqlUpdate("""
                update webhook_endpoints
                   set url = :url, host = :host, port = :port, pinned_address = cast(:address as inet),
                       updated_at = :now
                 where id = :id""")
        void updateUrl(UUID id, String url, String host, int port, String address, Instant now);

        @SqlUpdate("update webhook_endpoints set updated_at = :now where id = :id")
        void touch(UUID id, Instant now);

        /** Reactivating clears the reason Quipu gave, and the failure streak that auto-disable counts. */
        @SqlUpdate("""
                update webhook_endpoints
                   set active = :active, updated_at = :now,
                       disabled_reason = case when :active then null else disabled_reason end,
                       failing_since = case when :active then null else failing_since end
                 where id = :id""")
        void setActive(UUID id, boolean active, Instant now);

        @SqlUpdate("""
                delete from webhook_subscriptions
                 where endpoint_id = :id and not (event_type = any(cast(:keep as text[])))""")
        void unsubscribeOthers(UUID id, String[] keep);

        /** A type already subscribed keeps its {@code since_seq}: it has been receiving those events all along. */
        @SqlBatch("""
                insert into webhook_subscriptions (endpoint_id, event_type, since_seq) values (:id, :type, :since)
                on conflict (endpoint_id, event_type) do nothing""")
        void subscribe(@Bind("id") UUID id, @Bind("type") List<String> types, @Bind("since") long since);

        @SqlQuery("delete from webhook_endpoints where account_id = :accountId and id = :id returning url")
        Optional<String> delete(UUID accountId, UUID id);

        @SqlUpdate("""
                update webhook_endpoints
                   set previous_secret = secret, previous_secret_until = :until, secret = :secret, updated_at = :now
                 where id = :id""")
        void rotate(UUID id, String secret, Instant until, Instant now);

        String DELIVERY = """
                select id, event_id, event_type, status, attempts, response_code, latency_ms, last_attempt_at,
                       next_attempt_at, created_at, error
                  from webhook_deliveries
                """;

        record DeliveryRow(String id, String eventId, String eventType, String status, int attempts,
                           Integer responseCode, Integer latencyMs, Instant lastAttemptAt, Instant nextAttemptAt,
                           Instant createdAt, String error) {
            DeliveryView view() {
                return new DeliveryView(id, eventId, eventType, status, attempts, responseCode, latencyMs,
                        lastAttemptAt, nextAttemptAt, createdAt, error, null);
            }
        }

        @SqlQuery(DELIVERY + " where endpoint_id = :id order by created_at desc, id desc limit :limit")
        @RegisterConstructorMapper(DeliveryRow.class)
        List<DeliveryRow> deliveries(UUID id, int limit);

        @SqlQuery(DELIVERY + " where endpoint_id = :id and id = :deliveryId")
        @RegisterConstructorMapper(DeliveryRow.class)
        Optional<DeliveryRow> delivery(UUID id, String deliveryId);

        @SqlQuery("""
                select id, attempted_at, response_code, latency_ms, error, response_body
                  from webhook_attempts where delivery_id = :deliveryId order by attempted_at, id""")
        @RegisterConstructorMapper(DeliveryView.AttemptView.class)
        List<DeliveryView.AttemptView> attempts(String deliveryId);

        /** A delivery's lease end (null: not leased). */
        record Lease(Instant leaseUntil) {
        }

        /** The delivery's lease, with the row locked against a concurrent claim. */
        @SqlQuery("""
                select lease_until from webhook_deliveries where endpoint_id = :id and id = :deliveryId
                   for update""")
        @RegisterConstructorMapper(Lease.class)
        Optional<Lease> lockDelivery(UUID id, String deliveryId);

        @SqlUpdate("""
                update webhook_deliveries
                   set status = 'pending', attempts = 0, next_attempt_at = :now, lease_owner = null,
                       lease_until = null
                 where id = :deliveryId""")
        void restart(String deliveryId, Instant now);
    }
}
