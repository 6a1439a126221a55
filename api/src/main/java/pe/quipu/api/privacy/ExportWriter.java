package pe.quipu.api.privacy;

import com.fasterxml.jackson.core.JsonGenerator;
import pe.quipu.api.domain.LimaCalendar;
import pe.quipu.api.audit.AuditLog;
import pe.quipu.api.metering.Usage;
import pe.quipu.api.plans.Plan;
import pe.quipu.api.plans.PlanTable;

import java.io.IOException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * Writes one export document, member by member, as the rows come from the database: nothing but one row (and the
 * account's few endpoints) is held at a time, whatever the size of the audit log or the event history. The members,
 * in order: {@code exportedAt}, {@code format}, {@code compliance}, {@code user}, {@code auth}, {@code apiKeys},
 * {@code subscription}, {@code webhooks}, {@code events}, {@code auditLog}, {@code currentUsage},
 * {@code usageHistory}, {@code usageDays}, and {@code _meta} last, since its counts are known only at the end.
 * docs/data-inventory.md says which table each member comes from.
 *
 * <p>Never written: the password hash (only whether one is set), refresh-token hashes, key hashes, webhook secrets,
 * and the webhook envelopes (their events are under {@code events}).
 */
final class ExportWriter {

    static final String FORMAT = "v1";
    /** The spec's "up to 10 000 events, last 12 months" ({@link AuditLog#RETENTION}). */
    static final int AUDIT_LOG_LIMIT = 10_000;
    /** The spec's delivery history size: each endpoint's latest 100. */
    static final int DELIVERIES_PER_ENDPOINT = 100;

    private final ExportRows rows;
    private final JsonGenerator out;
    private final PlanTable plans;
    private final Map<String, Long> counts = new LinkedHashMap<>();
    private boolean auditLogTruncated;
    private boolean deliveriesTruncated;

    ExportWriter(ExportRows rows, JsonGenerator out, PlanTable plans) {
        this.rows = rows;
        this.out = out;
        this.plans = plans;
    }

    void write(UUID accountId, Instant exportedAt, PrivacySettings.Compliance compliance, Optional<Usage> usage)
            throws IOException {
        ExportRows.UserRow user = rows.user(accountId)
                .orElseThrow(() -> new IllegalStateException("the account " + accountId + " is gone"));
        out.writeStartObject();
        instant("exportedAt", exportedAt);
        out.writeStringField("format", FORMAT);
        out.writeFieldName("compliance");
        out.writeObject(compliance);
        user(user, usage.map(Usage::plan).orElse(null));
        auth(user);
        apiKeys(accountId, exportedAt);
        subscription(accountId, exportedAt);
        webhooks(accountId);
        watchlists(accountId);
        events(accountId);
        auditLog(accountId, exportedAt.atOffset(ZoneOffset.UTC).minus(AuditLog.RETENTION).toInstant());
        currentUsage(usage);
        usageHistory(accountId);
        usageDays(accountId);
        meta();
        out.writeEndObject();
        out.flush();
    }

    /** Every column of the account but the password hash. */
    private void user(ExportRows.UserRow user, String plan) throws IOException {
        out.writeObjectFieldStart("user");
        out.writeStringField("id", user.id().toString());
        out.writeStringField("email", user.email());
        out.writeStringField("nombre", user.nombre());
        out.writeNumberField("usageAlertPercent", user.usageAlertPercent());
        out.writeBooleanField("isAdmin", user.isAdmin());
        out.writeStringField("plan", plan);
        instant("createdAt", user.createdAt());
        instant("deletedAt", user.deletedAt());
        instant("lastExportedAt", user.lastExportedAt());
        out.writeEndObject();
    }

    /**
     * The email/password identity and the sessions, without any token. Quipu has no MFA, no email tokens (reset,
     * verification) and no OAuth: those arrays stay empty until it does.
     */
    private void auth(ExportRows.UserRow user) throws IOException {
        out.writeObjectFieldStart("auth");
        out.writeObjectFieldStart("profile");
        out.writeStringField("email", user.email());
        instant("createdAt", user.createdAt());
        instant("lastLoginAt", rows.lastLoginAt(user.id()).orElse(null));
        out.writeBooleanField("passwordSet", user.passwordSet());
        // A password is set at signup and Quipu has no way to change it yet: it was never changed.
        instant("passwordChangedAt", null);
        out.writeEndObject();

        out.writeArrayFieldStart("identities");
        long identities = 0;
        if (user.passwordSet()) {
            out.writeStartObject();
            out.writeStringField("type", "password");
            out.writeStringField("email", user.email());
            instant("createdAt", user.createdAt());
            out.writeEndObject();
            identities++;
        }
        out.writeEndArray();
        counts.put("auth.identities", identities);

        out.writeArrayFieldStart("sessions");
        long sessions = 0;
        try (Stream<ExportRows.SessionRow> stream = rows.sessions(user.id())) {
            for (Iterator<ExportRows.SessionRow> it = stream.iterator(); it.hasNext(); sessions++) {
                ExportRows.SessionRow s = it.next();
                out.writeStartObject();
                out.writeStringField("id", s.id().toString());
                instant("createdAt", s.createdAt());
                instant("lastUsedAt", s.lastUsedAt());
                instant("expiresAt", s.expiresAt());
                out.writeStringField("ip", s.ip());
                out.writeStringField("userAgent", s.userAgent());
                instant("revokedAt", s.revokedAt());
                out.writeEndObject();
            }
        }
        out.writeEndArray();
        counts.put("auth.sessions", sessions);

        for (String none : List.of("mfaFactors", "pendingTokens", "oauthAuthorizations")) {
            out.writeArrayFieldStart(none);
            out.writeEndArray();
            counts.put("auth." + none, 0L);
        }
        out.writeEndObject();
    }

    /** Every key the account ever had, newest first, as {@code GET /v1/keys} shows one, plus when it ended. */
    private void apiKeys(UUID accountId, Instant now) throws IOException {
        out.writeArrayFieldStart("apiKeys");
        long keys = 0;
        try (Stream<ExportRows.KeyRow> stream = rows.keys(accountId)) {
            for (Iterator<ExportRows.KeyRow> it = stream.iterator(); it.hasNext(); keys++) {
                ExportRows.KeyRow k = it.next();
                out.writeStartObject();
                out.writeStringField("id", k.id().toString());
                out.writeStringField("name", k.name());
                out.writeStringField("prefix", k.prefix());
                strings("scopes", k.scopes());
                // As GET /v1/keys shows it: a key whose grace has ended is revoked in all but the row.
                boolean graceOver = "grace".equals(k.status()) && k.expiresAt() != null && !now.isBefore(k.expiresAt());
                out.writeStringField("status", graceOver ? "revoked" : k.status());
                instant("createdAt", k.createdAt());
                instant("lastUsedAt", k.lastUsedAt());
                instant("expiresAt", k.expiresAt());
                instant("revokedAt", k.revokedAt());
                out.writeStringField("replacedBy", k.replacedBy() == null ? null : k.replacedBy().toString());
                out.writeEndObject();
            }
        }
        out.writeEndArray();
        counts.put("apiKeys", keys);
    }

    /** The current subscription with the limits in force and its period; the ended ones, latest first. */
    private void subscription(UUID accountId, Instant now) throws IOException {
        out.writeObjectFieldStart("subscription");
        long history = 0;
        boolean current = false;
        try (Stream<ExportRows.SubscriptionRow> stream = rows.subscriptions(accountId)) {
            Iterator<ExportRows.SubscriptionRow> it = stream.iterator();
            ExportRows.SubscriptionRow first = it.hasNext() ? it.next() : null;
            out.writeFieldName("current");
            if (first != null && first.endedAt() == null) {
                current(first, now);
                current = true;
                first = it.hasNext() ? it.next() : null;
            } else {
                out.writeNull();
            }
            out.writeArrayFieldStart("history");
            for (ExportRows.SubscriptionRow s = first; s != null; s = it.hasNext() ? it.next() : null) {
                out.writeStartObject();
                subscriptionFields(s);
                instant("endedAt", s.endedAt());
                out.writeEndObject();
                history++;
            }
            out.writeEndArray();
        }
        out.writeEndObject();
        counts.put("subscription.current", current ? 1L : 0L);
        counts.put("subscription.history", history);
    }

    private void current(ExportRows.SubscriptionRow s, Instant now) throws IOException {
        Plan plan = plans.resolve(s.plan());
        out.writeStartObject();
        subscriptionFields(s);
        out.writeObjectFieldStart("limits");
        out.writeNumberField("monthlyQuota", s.monthlyQuota() != null ? s.monthlyQuota() : plan.monthlyQuota());
        out.writeNumberField("rateLimitRpm", s.rateLimitRpm() != null ? s.rateLimitRpm() : plan.rateLimitRpm());
        out.writeNumberField("batchCap", plan.batchCap());
        out.writeNumberField("webhookEndpoints", plan.webhookEndpoints());
        out.writeEndObject();
        // The paid period under way: a subscription renews at each Lima month's start.
        out.writeObjectFieldStart("period");
        Instant monthStart = LimaCalendar.monthStart(now);
        instant("start", s.startedAt().isAfter(monthStart) ? s.startedAt() : monthStart);
        instant("end", s.renewsAt());
        out.writeEndObject();
        out.writeEndObject();
    }

    /** A subscription row; {@code overrides} are the account's own numbers where the operator set them. */
    private void subscriptionFields(ExportRows.SubscriptionRow s) throws IOException {
        out.writeStringField("id", s.id());
        out.writeStringField("plan", s.plan());
        out.writeObjectFieldStart("overrides");
        if (s.monthlyQuota() == null) {
            out.writeNullField("monthlyQuota");
        } else {
            out.writeNumberField("monthlyQuota", s.monthlyQuota());
        }
        if (s.rateLimitRpm() == null) {
            out.writeNullField("rateLimitRpm");
        } else {
            out.writeNumberField("rateLimitRpm", s.rateLimitRpm());
        }
        out.writeEndObject();
        instant("startedAt", s.startedAt());
        instant("renewsAt", s.renewsAt());
        instant("cancelAt", s.cancelAt());
    }

    /** Each endpoint without its secrets, with its latest deliveries (newest first), each with its attempts. */
    private void webhooks(UUID accountId) throws IOException {
        out.writeArrayFieldStart("webhooks");
        long deliveries = 0;
        long attempts = 0;
        List<ExportRows.EndpointRow> endpoints = rows.endpoints(accountId);
        for (ExportRows.EndpointRow e : endpoints) {
            out.writeStartObject();
            out.writeStringField("id", e.id().toString());
            out.writeStringField("url", e.url());
            strings("events", e.events());
            out.writeBooleanField("active", e.active());
            out.writeStringField("disabledReason", e.disabledReason());
            instant("createdAt", e.createdAt());
            instant("updatedAt", e.updatedAt());
            instant("previousSecretExpiresAt", e.previousSecretUntil());
            out.writeStringField("host", e.host());
            out.writeNumberField("port", e.port());
            out.writeStringField("pinnedAddress", e.pinnedAddress());
            instant("failingSince", e.failingSince());
            out.writeArrayFieldStart("deliveries");
            String open = null;
            int written = 0;
            try (Stream<ExportRows.DeliveryAttemptRow> stream =
                         rows.deliveries(e.id(), DELIVERIES_PER_ENDPOINT + 1)) {
                for (Iterator<ExportRows.DeliveryAttemptRow> it = stream.iterator(); it.hasNext(); ) {
                    ExportRows.DeliveryAttemptRow d = it.next();
                    if (!d.id().equals(open)) {
                        if (open != null) {
                            out.writeEndArray();
                            out.writeEndObject();
                        }
                        if (written == DELIVERIES_PER_ENDPOINT) {
                            deliveriesTruncated = true;
                            open = null;
                            break;
                        }
                        delivery(d);
                        open = d.id();
                        written++;
                    }
                    if (d.attemptId() != null) {
                        attempt(d);
                        attempts++;
                    }
                }
            }
            if (open != null) {
                out.writeEndArray();
                out.writeEndObject();
            }
            out.writeEndArray();
            out.writeEndObject();
            deliveries += written;
        }
        out.writeEndArray();
        counts.put("webhooks", (long) endpoints.size());
        counts.put("webhooks.deliveries", deliveries);
        counts.put("webhooks.deliveries.attemptLog", attempts);
    }

    /** A delivery record as {@code GET /v1/webhooks/{id}/deliveries/{deliveryId}} shows it; leaves attemptLog open. */
    private void delivery(ExportRows.DeliveryAttemptRow d) throws IOException {
        out.writeStartObject();
        out.writeStringField("id", d.id());
        out.writeStringField("eventId", d.eventId());
        out.writeStringField("eventType", d.eventType());
        out.writeStringField("status", d.status());
        out.writeNumberField("attempts", d.attempts());
        integer("responseCode", d.responseCode());
        integer("latencyMs", d.latencyMs());
        instant("lastAttemptAt", d.lastAttemptAt());
        instant("nextAttemptAt", d.nextAttemptAt());
        instant("createdAt", d.createdAt());
        out.writeStringField("error", d.error());
        out.writeArrayFieldStart("attemptLog");
    }

    private void attempt(ExportRows.DeliveryAttemptRow d) throws IOException {
        out.writeStartObject();
        out.writeStringField("id", d.attemptId());
        instant("attemptedAt", d.attemptedAt());
        integer("responseCode", d.attemptResponseCode());
        integer("latencyMs", d.attemptLatencyMs());
        out.writeStringField("error", d.attemptError());
        out.writeStringField("responseBody", d.attemptResponseBody());
        out.writeEndObject();
    }

    /** The outbox events about the account, newest first: what its webhooks were (or would have been) sent. */
    private void events(UUID accountId) throws IOException {
        out.writeArrayFieldStart("events");
        long events = 0;
        try (Stream<ExportRows.EventRow> stream = rows.events(accountId)) {
            for (Iterator<ExportRows.EventRow> it = stream.iterator(); it.hasNext(); events++) {
                ExportRows.EventRow e = it.next();
                out.writeStartObject();
                out.writeStringField("id", e.id());
                out.writeStringField("type", e.type());
                instant("createdAt", e.createdAt());
                out.writeFieldName("data");
                // jsonb as PostgreSQL prints it: valid JSON, copied without parsing.
                out.writeRawValue(e.data());
                out.writeEndObject();
            }
        }
        out.writeEndArray();
        counts.put("events", events);
    }

    /** Up to {@link #AUDIT_LOG_LIMIT} rows since {@code since}, newest first; one more is read to know if it was cut. */
    private void auditLog(UUID accountId, Instant since) throws IOException {
        out.writeArrayFieldStart("auditLog");
        long written = 0;
        try (Stream<ExportRows.AuditRow> stream = rows.auditLog(accountId, since, AUDIT_LOG_LIMIT + 1)) {
            for (Iterator<ExportRows.AuditRow> it = stream.iterator(); it.hasNext(); ) {
                ExportRows.AuditRow a = it.next();
                if (written == AUDIT_LOG_LIMIT) {
                    auditLogTruncated = true;
                    break;
                }
                out.writeStartObject();
                instant("at", a.at());
                out.writeStringField("action", a.action());
                out.writeStringField("ip", a.ip());
                out.writeStringField("userAgent", a.userAgent());
                out.writeFieldName("details");
                out.writeRawValue(a.details());
                out.writeEndObject();
                written++;
            }
        }
        out.writeEndArray();
        counts.put("auditLog", written);
    }

    /** As {@code GET /v1/usage} computes it. */
    private void currentUsage(Optional<Usage> usage) throws IOException {
        out.writeFieldName("currentUsage");
        if (usage.isEmpty()) {
            out.writeNull();
            return;
        }
        Usage u = usage.get();
        out.writeStartObject();
        out.writeObjectFieldStart("monthlyQuota");
        out.writeNumberField("limit", u.monthlyQuota().limit());
        out.writeNumberField("used", u.monthlyQuota().used());
        out.writeNumberField("remaining", u.monthlyQuota().remaining());
        instant("periodStart", u.period().start());
        instant("periodEnd", u.period().end());
        out.writeEndObject();
        out.writeNumberField("rateLimitRpm", u.rateLimitRpm());
        out.writeEndObject();
    }

    /**
     * The account's watchlists by name, each with its RUCs in RUC order (contract §11), streamed: one list may hold
     * 1,000,000 RUCs.
     */
    private void watchlists(UUID accountId) throws IOException {
        out.writeArrayFieldStart("watchlists");
        long lists = 0;
        long rucs = 0;
        String open = null;
        try (Stream<ExportRows.WatchlistRucRow> stream = rows.watchlistRucs(accountId)) {
            for (Iterator<ExportRows.WatchlistRucRow> it = stream.iterator(); it.hasNext(); ) {
                ExportRows.WatchlistRucRow r = it.next();
                if (!r.name().equals(open)) {
                    if (open != null) {
                        out.writeEndArray();
                        out.writeEndObject();
                    }
                    open = r.name();
                    lists++;
                    out.writeStartObject();
                    out.writeStringField("name", r.name());
                    out.writeNumberField("count", r.count());
                    instant("createdAt", r.createdAt());
                    instant("updatedAt", r.updatedAt());
                    out.writeArrayFieldStart("rucs");
                }
                if (r.ruc() != null) {
                    out.writeString(r.ruc());
                    rucs++;
                }
            }
        }
        if (open != null) {
            out.writeEndArray();
            out.writeEndObject();
        }
        out.writeEndArray();
        counts.put("watchlists", lists);
        counts.put("watchlists.rucs", rucs);
    }

    /** The quota units counted per Lima month, latest first (what the instances had synced by then). */
    private void usageHistory(UUID accountId) throws IOException {
        out.writeArrayFieldStart("usageHistory");
        long months = 0;
        try (Stream<ExportRows.UsageMonthRow> stream = rows.usageMonths(accountId)) {
            for (Iterator<ExportRows.UsageMonthRow> it = stream.iterator(); it.hasNext(); months++) {
                ExportRows.UsageMonthRow m = it.next();
                out.writeStartObject();
                out.writeStringField("month", m.month());
                out.writeNumberField("used", m.used());
                instant("alertedAt", m.alertedAt());
                out.writeEndObject();
            }
        }
        out.writeEndArray();
        counts.put("usageHistory", months);
    }

    /** The requests answered and units spent per Lima day, latest first (what the instances had synced by then). */
    private void usageDays(UUID accountId) throws IOException {
        out.writeArrayFieldStart("usageDays");
        long days = 0;
        try (Stream<ExportRows.UsageDayRow> stream = rows.usageDays(accountId)) {
            for (Iterator<ExportRows.UsageDayRow> it = stream.iterator(); it.hasNext(); days++) {
                ExportRows.UsageDayRow d = it.next();
                out.writeStartObject();
                out.writeStringField("fecha", d.day().toString());
                out.writeNumberField("requests", d.requests());
                out.writeNumberField("units", d.units());
                out.writeEndObject();
            }
        }
        out.writeEndArray();
        counts.put("usageDays", days);
    }

    private void meta() throws IOException {
        out.writeObjectFieldStart("_meta");
        out.writeObjectFieldStart("truncated");
        out.writeBooleanField("auditLog", auditLogTruncated);
        out.writeBooleanField("webhookDeliveries", deliveriesTruncated);
        out.writeEndObject();
        out.writeObjectFieldStart("counts");
        for (Map.Entry<String, Long> count : counts.entrySet()) {
            out.writeNumberField(count.getKey(), count.getValue());
        }
        out.writeEndObject();
        out.writeEndObject();
    }

    private void instant(String name, Instant value) throws IOException {
        out.writeStringField(name, value == null ? null : value.toString());
    }

    private void integer(String name, Integer value) throws IOException {
        if (value == null) {
            out.writeNullField(name);
        } else {
            out.writeNumberField(name, value);
        }
    }

    private void strings(String name, List<String> values) throws IOException {
        out.writeArrayFieldStart(name);
        for (String value : values) {
            out.writeString(value);
        }
        out.writeEndArray();
    }
}
