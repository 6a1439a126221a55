package pe.quipu.api.webhooks;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.customizer.Bind;
import org.jdbi.v3.sqlobject.customizer.BindMethods;
import org.jdbi.v3.sqlobject.statement.SqlBatch;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The delivery worker's SQL: outbox events fanned out into deliveries, due deliveries claimed under a lease, attempts
 * recorded. Claims lock with {@code FOR UPDATE SKIP LOCKED}, so instances never claim the same delivery; a lease
 * outlives the longest attempt, so an attempt cut short by a crash is claimed again only once it cannot still be
 * under way. Every instant comes from the worker's clock, none from the database's.
 */
final class DeliveryStore {

    /** Events fanned out per transaction. */
    static final int FAN_OUT_BATCH = 500;

    private final Jdbi jdbi;
    private final ObjectMapper json;

    DeliveryStore(Jdbi jdbi, ObjectMapper json) {
        this.jdbi = jdbi;
        this.json = json;
    }

    /** A delivery claimed for one attempt, with what the attempt needs from its endpoint. */
    public record Claimed(String id, UUID endpointId, String eventId, String eventType, byte[] body, int attempts,
                   String url, String pinnedAddress, String secret, String previousSecret,
                   Instant previousSecretUntil) {
    }

    /** An attempt's result, as the delivery record will hold it. */
    public record Recorded(String deliveryId, UUID endpointId, String attemptId, Instant attemptedAt, String status,
                    Instant nextAttemptAt, Integer responseCode, int latencyMs, String error, String responseBody) {
        boolean delivered() {
            return DeliveryStatus.DELIVERED.equals(status);
        }
    }

    /**
     * Turns up to {@link #FAN_OUT_BATCH} outbox events into deliveries, one per subscribed active endpoint (contract
     * §6: account events to the account's endpoints, {@code etl.run.*} to every admin account's), each with the
     * event's envelope serialised once. Returns how many events it took; another instance takes other events.
     */
    int fanOut(Instant now, Instant firstAttemptAt) {
        return jdbi.inTransaction(h -> {
            FanOutRows rows = h.attach(FanOutRows.class);
            List<PendingEvent> events = rows.pendingEvents(FAN_OUT_BATCH);
            if (events.isEmpty()) {
                return 0;
            }
            Map<String, byte[]> envelopes = new LinkedHashMap<>();
            String[] seqs = new String[events.size()];
            for (int i = 0; i < events.size(); i++) {
                PendingEvent event = events.get(i);
                seqs[i] = Long.toString(event.seq());
                envelopes.put(event.id(), envelope(event));
            }
            List<Recipient> recipients = rows.recipients(seqs);
            rows.insertDeliveries(recipients.stream().map(r -> new NewDelivery(Ids.newId("dlv_"), r.endpointId(),
                    r.eventId(), r.eventType(), envelopes.get(r.eventId()))).toList(), firstAttemptAt, now);
            rows.markFannedOut(seqs, now);
            return events.size();
        });
    }

    /** Inserts one delivery of an event written on {@code handle} (the endpoint test), marking the event fanned out. */
    String deliverNow(Handle handle, UUID endpointId, String eventId, String type, Instant createdAt, Object data,
                      Instant now) {
        String id = Ids.newId("dlv_");
        byte[] body = envelope(eventId, type, createdAt, json.valueToTree(data));
        FanOutRows rows = handle.attach(FanOutRows.class);
        rows.insertDeliveries(List.of(new NewDelivery(id, endpointId, eventId, type, body)), now, now);
        rows.markEventFannedOut(eventId, now);
        return id;
    }

    /**
     * Claims up to {@code limit} due deliveries of active endpoints for {@code owner} until {@code leaseUntil}, at
     * most {@code room.get(endpoint)} (or {@code perEndpoint} when absent) per endpoint; endpoints with no room are
     * skipped in the query itself, so one slow endpoint's backlog is neither claimed nor scanned.
     */
    List<Claimed> claim(UUID owner, Instant now, Instant leaseUntil, int limit, Map<UUID, Integer> room,
                        int perEndpoint) {
        String[] full = room.entrySet().stream().filter(e -> e.getValue() <= 0)
                .map(e -> e.getKey().toString()).toArray(String[]::new);
        return jdbi.inTransaction(h -> {
            ClaimRows rows = h.attach(ClaimRows.class);
            List<Candidate> candidates = rows.due(now, full, perEndpoint, limit * 2);
            Map<UUID, Integer> taken = new LinkedHashMap<>();
            List<String> ids = new ArrayList<>();
            for (Candidate c : candidates) {
                int left = room.getOrDefault(c.endpointId(), perEndpoint) - taken.getOrDefault(c.endpointId(), 0);
                if (left > 0 && ids.size() < limit) {
                    ids.add(c.id());
                    taken.merge(c.endpointId(), 1, Integer::sum);
                }
            }
            return ids.isEmpty() ? List.of() : rows.lease(ids.toArray(String[]::new), owner, leaseUntil);
        });
    }

    /** Records attempts; an attempt whose lease was lost (the delivery deleted, or claimed again) is dropped. */
    void record(UUID owner, Collection<Recorded> attempts) {
        if (attempts.isEmpty()) {
            return;
        }
        jdbi.useTransaction(h -> {
            RecordRows rows = h.attach(RecordRows.class);
            List<Recorded> list = List.copyOf(attempts);
            int[] updated = rows.updateDeliveries(list, owner);
            List<Recorded> kept = new ArrayList<>(list.size());
            for (int i = 0; i < list.size(); i++) {
                if (updated[i] > 0) {
                    kept.add(list.get(i));
                }
            }
            if (kept.isEmpty()) {
                return;
            }
            rows.insertAttempts(kept);
            String[] succeeded = kept.stream().filter(Recorded::delivered)
                    .map(r -> r.endpointId().toString()).distinct().toArray(String[]::new);
            // Each failing endpoint's streak starts at its own earliest failed attempt of the batch.
            Map<UUID, Instant> failedSince = new LinkedHashMap<>();
            kept.stream().filter(r -> !r.delivered())
                    .forEach(r -> failedSince.merge(r.endpointId(), r.attemptedAt(), (a, b) -> a.isBefore(b) ? a : b));
            if (succeeded.length > 0) {
                rows.endpointsSucceeded(succeeded);
            }
            if (!failedSince.isEmpty()) {
                rows.endpointsFailing(List.copyOf(failedSince.keySet()), List.copyOf(failedSince.values()));
            }
        });
    }

    /** Hands back what {@code owner} claimed and never attempted (a graceful stop), due again at once. */
    int release(UUID owner) {
        return jdbi.withHandle(h -> h.attach(ClaimRows.class).release(owner));
    }

    /** Deliveries waiting for an attempt, all workers together (the due-index's rows). */
    long pendingCount() {
        return jdbi.withHandle(h -> h.attach(ClaimRows.class).pendingCount());
    }

    private byte[] envelope(PendingEvent event) {
        try {
            return envelope(event.id(), event.type(), event.createdAt(), json.readTree(event.dataJson()));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("event " + event.id() + " holds data that is not JSON", e);
        }
    }

    /** The envelope of the spec ({@code id, type, createdAt, data}), in that order. */
    private byte[] envelope(String id, String type, Instant createdAt, com.fasterxml.jackson.databind.JsonNode data) {
        ObjectNode envelope = json.createObjectNode();
        envelope.put("id", id);
        envelope.put("type", type);
        envelope.put("createdAt", createdAt.toString());
        envelope.set("data", data);
        try {
            return json.writeValueAsBytes(envelope);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("an envelope is always serialisable", e);
        }
    }

    public record PendingEvent(long seq, String id, String type, Instant createdAt, String dataJson) {
    }

    public record Recipient(UUID endpointId, String eventId, String eventType) {
    }

    public record Candidate(String id, UUID endpointId) {
    }

    public record NewDelivery(String id, UUID endpointId, String eventId, String eventType, byte[] body) {
    }

    interface FanOutRows {
        @SqlQuery("""
                select seq, id, type, created_at, data::text as data_json
                  from events where fanned_out_at is null
                 order by seq limit :limit
                   for update skip locked""")
        @RegisterConstructorMapper(PendingEvent.class)
        List<PendingEvent> pendingEvents(int limit);

        // An endpoint gets the events of its type emitted after it subscribed: account events of its own account,
        // etl.run.* when its account has admin rights. Deleted accounts receive nothing.
        @SqlQuery("""
                select s.endpoint_id, e.id as event_id, e.type as event_type
                  from events e
                  join webhook_subscriptions s on s.event_type = e.type and s.since_seq < e.seq
                  join webhook_endpoints w on w.id = s.endpoint_id and w.active
                  join accounts a on a.id = w.account_id and a.deleted_at is null
                 where e.seq = any(cast(:seqs as bigint[]))
                   and case when e.type like 'etl.run.%' then a.is_admin else w.account_id = e.account_id end
                 order by e.seq, s.endpoint_id""")
        @RegisterConstructorMapper(Recipient.class)
        List<Recipient> recipients(String[] seqs);

        @SqlBatch("""
                insert into webhook_deliveries (id, endpoint_id, event_id, event_type, body, status, next_attempt_at,
                                                created_at)
                values (:id, :endpointId, :eventId, :eventType, :body, 'pending', :firstAttemptAt, :now)
                on conflict (endpoint_id, event_id) do nothing""")
        void insertDeliveries(@BindMethods List<NewDelivery> deliveries, @Bind("firstAttemptAt") Instant firstAttemptAt,
                              @Bind("now") Instant now);

        @SqlUpdate("update events set fanned_out_at = :now where seq = any(cast(:seqs as bigint[]))")
        void markFannedOut(String[] seqs, Instant now);

        @SqlUpdate("update events set fanned_out_at = :now where id = :id")
        void markEventFannedOut(String id, Instant now);
    }

    interface ClaimRows {
        // Endpoint by endpoint (in random order, so none is always served last), each one's earliest due
        // deliveries up to perEndpoint; endpoints without room on this worker are not looked at.
        @SqlQuery("""
                select d.id, d.endpoint_id
                  from (select id from webhook_endpoints
                         where active and not (id = any(cast(:full as uuid[])))
                         order by random()) w
                 cross join lateral (
                       select d.id, d.endpoint_id
                         from webhook_deliveries d
                        where d.endpoint_id = w.id and d.status in ('pending', 'retrying')
                          and d.next_attempt_at <= :now
                          and (d.lease_until is null or d.lease_until <= :now)
                        order by d.next_attempt_at
                        limit :perEndpoint
                          for update of d skip locked) d
                 limit :limit""")
        @RegisterConstructorMapper(Candidate.class)
        List<Candidate> due(Instant now, String[] full, int perEndpoint, int limit);

        @SqlQuery("""
                update webhook_deliveries d set lease_owner = :owner, lease_until = :leaseUntil
                  from webhook_endpoints w
                 where w.id = d.endpoint_id and d.id = any(:ids)
                returning d.id, d.endpoint_id, d.event_id, d.event_type, d.body, d.attempts, w.url,
                          host(w.pinned_address) as pinned_address, w.secret, w.previous_secret,
                          w.previous_secret_until""")
        @RegisterConstructorMapper(Claimed.class)
        List<Claimed> lease(String[] ids, UUID owner, Instant leaseUntil);

        @SqlUpdate("""
                update webhook_deliveries set lease_owner = null, lease_until = null
                 where lease_owner = :owner and status in ('pending', 'retrying')""")
        int release(UUID owner);

        @SqlQuery("select count(*) from webhook_deliveries where status in ('pending', 'retrying')")
        long pendingCount();
    }

    interface RecordRows {
        @SqlBatch("""
                update webhook_deliveries
                   set status = :status, attempts = attempts + 1, next_attempt_at = :nextAttemptAt,
                       lease_owner = null, lease_until = null, last_attempt_at = :attemptedAt,
                       response_code = :responseCode, latency_ms = :latencyMs, error = :error
                 where id = :deliveryId and lease_owner = :owner""")
        int[] updateDeliveries(@BindMethods List<Recorded> attempts, @Bind("owner") UUID owner);

        @SqlBatch("""
                insert into webhook_attempts (id, delivery_id, attempted_at, response_code, latency_ms, error,
                                              response_body)
                values (:attemptId, :deliveryId, :attemptedAt, :responseCode, :latencyMs, :error, :responseBody)""")
        void insertAttempts(@BindMethods List<Recorded> attempts);

        @SqlUpdate("""
                update webhook_endpoints set failing_since = null
                 where id = any(cast(:ids as uuid[])) and failing_since is not null""")
        void endpointsSucceeded(String[] ids);

        @SqlBatch("update webhook_endpoints set failing_since = :at where id = :id and failing_since is null")
        void endpointsFailing(@Bind("id") List<UUID> ids, @Bind("at") List<Instant> at);
    }
}
