package pe.quipu.api.privacy;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.api.testing.TestAccounts;

import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static pe.quipu.api.testing.ProblemAssert.assertProblem;

/**
 * {@code GET /v1/me/export} (the spec's "Personal-data export document", contract §8): every member with the
 * account's data and no secret, the headers, the JWT-only rule, the 24-hour throttle across instances, and the audit
 * log's cut at 10,000 rows of the last 12 months. ExportHeapTest shows it streams.
 */
class ExportTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension().with("webhooks.workerEnabled", "false");

    private static final String JSON = "application/json";

    static {
        quipu.dns.set("hooks.example.com", "93.184.215.14");
    }

    /**
     * One account with something of everything Quipu keeps (a plan change, three keys one of them rotated, a webhook
     * endpoint with a delivery, a metered request, a refreshed session, a rectification), exported once; each test
     * reads one part of that document, so a failure names the part.
     */
    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    class TheWholeDocument {

        private TestAccounts.Session session;
        private String token;
        private JsonNode first;
        private JsonNode second;
        private JsonNode rotated;
        private String key;
        private JsonNode endpoint;
        private String testEvent;
        private String testDelivery;
        private String nextRefreshToken;
        private Instant rotatedAt;
        private Instant refreshedAt;
        private Instant exportedAt;
        private HttpResponse<String> response;
        private JsonNode export;

        @BeforeAll
        void exportAnAccountWithSomethingOfEverything() {
            // The extension sets the clock back before each test, not before this: the story starts at START.
            quipu.clock.set(QuipuExtension.START);
            session = quipu.accounts.newSession();
            token = session.accessToken();
            // A subscription change: free, then pro.
            assertThat(quipu.task("set-plan", "email", session.email(), "plan", "pro").statusCode()).isEqualTo(200);
            // Two keys, the second one rotated.
            first = created(quipu.post("/v1/keys", token, JSON,
                    "{\"name\":\"servidor\",\"scopes\":[\"webhooks:manage\",\"ubigeos:read\"]}"));
            quipu.clock.advance(Duration.ofSeconds(1));
            second = created(quipu.post("/v1/keys", token, JSON, "{\"name\":\"laptop\",\"scopes\":[\"ruc:read\"]}"));
            quipu.clock.advance(Duration.ofMinutes(1));
            rotatedAt = quipu.clock.instant();
            rotated = created(quipu.request("POST", "/v1/keys/" + second.get("id").asText() + "/rotate", token));
            key = first.get("key").asText();
            // A webhook endpoint with one delivery (pending: nothing is sent here).
            endpoint = created(quipu.post("/v1/webhooks", key, JSON,
                    "{\"url\":\"https://hooks.example.com/quipu\",\"events\":[\"key.created\",\"key.rotated\"]}"));
            HttpResponse<String> test = quipu.request("POST", "/v1/webhooks/" + endpoint.get("id").asText() + "/test",
                    key);
            assertThat(test.statusCode()).as(test.body()).isEqualTo(202);
            testEvent = quipu.body(test).get("eventId").asText();
            testDelivery = quipu.body(test).get("deliveryId").asText();
            // One metered request, a refresh of the session, and a rectification.
            assertThat(quipu.get("/v1/ubigeos?limit=1", key).statusCode()).isEqualTo(200);
            quipu.clock.advance(Duration.ofMinutes(1));
            refreshedAt = quipu.clock.instant();
            HttpResponse<String> refresh = quipu.accounts.refresh(session.refreshToken());
            assertThat(refresh.statusCode()).isEqualTo(200);
            nextRefreshToken = quipu.body(refresh).get("refreshToken").asText();
            assertThat(quipu.patch("/v1/me", token, JSON, "{\"nombre\":\"Ana Quispe\"}").statusCode()).isEqualTo(200);
            quipu.clock.advance(Duration.ofMinutes(1));
            exportedAt = quipu.clock.instant();

            response = quipu.get("/v1/me/export", token);

            assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
            export = quipu.body(response);
        }

        @Test
        void is_a_json_attachment_named_for_the_lima_day_and_never_cached() {
            assertThat(response.headers().firstValue("Content-Type")).get().asString()
                    .matches("(?i)application/json; ?charset=utf-8");
            assertThat(response.headers().firstValue("Content-Disposition"))
                    .hasValue("attachment; filename=\"quipu-export-2026-10-07.json\"");
            assertThat(response.headers().firstValue("Cache-Control")).hasValue("no-store");
        }

        @Test
        void has_every_member_in_order_with_its_time_and_format() {
            assertThat(fieldNames(export)).containsExactly("exportedAt", "format", "compliance", "user", "auth",
                    "apiKeys", "subscription", "webhooks", "watchlists", "events", "auditLog", "currentUsage",
                    "usageHistory",
                    "usageDays", "_meta");
            assertThat(export.get("exportedAt").asText()).isEqualTo(exportedAt.toString());
            assertThat(export.get("format").asText()).isEqualTo("v1");
        }

        @Test
        void compliance_is_the_privacy_section_of_the_configuration_as_it_is() {
            // Placeholders in the repository's config.yml.
            JsonNode compliance = export.get("compliance");
            assertThat(fieldNames(compliance)).containsExactly("registryNumber", "certificate", "controller",
                    "transfers", "rights");
            assertThat(fieldNames(compliance.get("controller"))).containsExactly("nombre", "documento", "email",
                    "domicilio");
            assertThat(compliance.get("controller").get("nombre").asText()).startsWith("PLACEHOLDER");
            assertThat(fieldNames(compliance.get("transfers").get(0))).containsExactly("pais", "entidad", "finalidad");
            assertThat(compliance.get("rights").asText()).contains("/v1/me/export");
        }

        @Test
        void user_is_every_column_of_the_account_but_the_password_hash() {
            JsonNode user = export.get("user");
            assertThat(fieldNames(user)).containsExactly("id", "email", "nombre", "usageAlertPercent", "isAdmin",
                    "plan", "createdAt", "deletedAt", "lastExportedAt");
            assertThat(user.get("id").asText()).isEqualTo(session.accountId().toString());
            assertThat(user.get("email").asText()).isEqualTo(session.email());
            assertThat(user.get("nombre").asText()).isEqualTo("Ana Quispe");
            assertThat(user.get("usageAlertPercent").asInt()).isEqualTo(80);
            assertThat(user.get("isAdmin").asBoolean()).isFalse();
            assertThat(user.get("plan").asText()).isEqualTo("pro");
            assertThat(user.get("createdAt").asText()).isEqualTo(QuipuExtension.START.toString());
            assertThat(user.get("deletedAt").isNull()).isTrue();
            assertThat(user.get("lastExportedAt").asText()).isEqualTo(exportedAt.toString());
        }

        @Test
        void auth_shows_the_identity_and_the_session_never_a_token_or_the_hash() {
            JsonNode auth = export.get("auth");
            assertThat(fieldNames(auth)).containsExactly("profile", "identities", "sessions", "mfaFactors",
                    "pendingTokens", "oauthAuthorizations");
            JsonNode profile = auth.get("profile");
            assertThat(fieldNames(profile)).containsExactly("email", "createdAt", "lastLoginAt", "passwordSet",
                    "passwordChangedAt");
            assertThat(profile.get("email").asText()).isEqualTo(session.email());
            assertThat(profile.get("lastLoginAt").asText()).isEqualTo(QuipuExtension.START.toString());
            assertThat(profile.get("passwordSet").asBoolean()).isTrue();
            assertThat(profile.get("passwordChangedAt").isNull()).isTrue();
            assertThat(auth.get("identities")).hasSize(1);
            JsonNode identity = auth.get("identities").get(0);
            assertThat(identity.get("type").asText()).isEqualTo("password");
            assertThat(identity.get("email").asText()).isEqualTo(session.email());
            assertThat(identity.get("createdAt").asText()).isEqualTo(QuipuExtension.START.toString());
            assertThat(auth.get("sessions")).hasSize(1);
            JsonNode sessionNode = auth.get("sessions").get(0);
            assertThat(fieldNames(sessionNode)).containsExactly("id", "createdAt", "lastUsedAt", "expiresAt", "ip",
                    "userAgent", "revokedAt");
            assertThat(sessionNode.get("id").asText()).isEqualTo(quipu.database.texts(
                    "select id from sessions where account_id = ?", session.accountId()).getFirst());
            assertThat(sessionNode.get("createdAt").asText()).isEqualTo(QuipuExtension.START.toString());
            assertThat(sessionNode.get("lastUsedAt").asText()).isEqualTo(refreshedAt.toString());
            assertThat(sessionNode.get("expiresAt").asText())
                    .isEqualTo(refreshedAt.plus(Duration.ofDays(30)).toString());
            assertThat(sessionNode.get("ip").asText()).isEqualTo("127.0.0.1");
            assertThat(sessionNode.get("userAgent").asText()).startsWith("Java-http-client/");
            assertThat(sessionNode.get("revokedAt").isNull()).isTrue();
            for (String none : List.of("mfaFactors", "pendingTokens", "oauthAuthorizations")) {
                assertThat(auth.get(none).isArray()).as(none).isTrue();
                assertThat(auth.get(none)).as(none).isEmpty();
            }
        }

        @Test
        void api_keys_are_all_three_newest_first_the_rotated_one_in_grace_pointing_at_its_replacement() {
            JsonNode keys = export.get("apiKeys");
            assertThat(keys).hasSize(3);
            assertThat(fieldNames(keys.get(0))).containsExactly("id", "name", "prefix", "scopes", "status",
                    "createdAt", "lastUsedAt", "expiresAt", "revokedAt", "replacedBy");
            assertThat(keys).extracting(k -> k.get("id").asText()).containsExactly(rotated.get("id").asText(),
                    second.get("id").asText(), first.get("id").asText());
            assertThat(keys).extracting(k -> k.get("status").asText()).containsExactly("active", "grace", "active");
            assertThat(keys.get(1).get("expiresAt").asText())
                    .isEqualTo(rotatedAt.plus(Duration.ofHours(24)).toString());
            assertThat(keys.get(1).get("replacedBy").asText()).isEqualTo(rotated.get("id").asText());
            assertThat(keys.get(2).get("name").asText()).isEqualTo("servidor");
            assertThat(keys.get(2).get("prefix").asText()).isEqualTo(first.get("prefix").asText());
            assertThat(keys.get(2).get("scopes")).extracting(JsonNode::asText)
                    .containsExactlyInAnyOrder("webhooks:manage", "ubigeos:read");
        }

        @Test
        void subscription_is_pro_now_with_its_limits_and_lima_period_and_free_before_it() {
            JsonNode subscription = export.get("subscription");
            JsonNode current = subscription.get("current");
            assertThat(current.get("plan").asText()).isEqualTo("pro");
            assertThat(current.get("limits").get("monthlyQuota").asLong()).isEqualTo(500_000);
            assertThat(current.get("limits").get("rateLimitRpm").asInt()).isEqualTo(600);
            assertThat(current.get("limits").get("batchCap").asInt()).isEqualTo(200);
            assertThat(current.get("limits").get("webhookEndpoints").asInt()).isEqualTo(5);
            assertThat(current.get("overrides").get("monthlyQuota").isNull()).isTrue();
            assertThat(current.get("startedAt").asText()).isEqualTo(QuipuExtension.START.toString());
            assertThat(current.get("period").get("start").asText()).isEqualTo(QuipuExtension.START.toString());
            // Lima months: November starts at 05:00 UTC.
            assertThat(current.get("period").get("end").asText()).isEqualTo("2026-11-01T05:00:00Z");
            assertThat(subscription.get("history")).hasSize(1);
            assertThat(subscription.get("history").get(0).get("plan").asText()).isEqualTo("free");
            assertThat(subscription.get("history").get(0).get("endedAt").asText())
                    .isEqualTo(QuipuExtension.START.toString());
        }

        @Test
        void webhooks_show_the_endpoint_without_its_secret_with_its_delivery() {
            JsonNode webhooks = export.get("webhooks");
            assertThat(webhooks).hasSize(1);
            JsonNode hook = webhooks.get(0);
            assertThat(hook.get("id").asText()).isEqualTo(endpoint.get("id").asText());
            assertThat(hook.get("url").asText()).isEqualTo("https://hooks.example.com/quipu");
            assertThat(hook.get("events")).extracting(JsonNode::asText).containsExactly("key.created", "key.rotated");
            assertThat(hook.get("active").asBoolean()).isTrue();
            assertThat(hook.get("pinnedAddress").asText()).isEqualTo("93.184.215.14");
            assertThat(hook.has("secret")).isFalse();
            assertThat(hook.get("deliveries")).hasSize(1);
            JsonNode delivery = hook.get("deliveries").get(0);
            assertThat(delivery.get("id").asText()).isEqualTo(testDelivery);
            assertThat(delivery.get("eventId").asText()).isEqualTo(testEvent);
            assertThat(delivery.get("eventType").asText()).isEqualTo("endpoint.test");
            assertThat(delivery.get("status").asText()).isEqualTo("pending");
            assertThat(delivery.get("attemptLog")).isEmpty();
        }

        @Test
        void events_are_what_the_accounts_webhooks_are_sent_newest_first() {
            assertThat(export.get("events")).extracting(e -> e.get("type").asText())
                    .containsExactly("endpoint.test", "key.rotated", "key.created", "key.created",
                            "subscription.updated");
            assertThat(export.get("events").get(0).get("id").asText()).isEqualTo(testEvent);
            assertThat(export.get("events").get(0).get("data").get("url").asText())
                    .isEqualTo("https://hooks.example.com/quipu");
        }

        @Test
        void the_audit_log_is_newest_first_the_export_itself_included() {
            JsonNode audit = export.get("auditLog");
            assertThat(audit).extracting(a -> a.get("action").asText()).containsExactly("export", "rectification",
                    "webhook.created", "key.rotated", "key.created", "key.created", "plan.changed", "login",
                    "signup");
            assertThat(fieldNames(audit.get(0))).containsExactly("at", "action", "ip", "userAgent", "details");
            assertThat(audit.get(0).get("at").asText()).isEqualTo(exportedAt.toString());
            assertThat(audit.get(0).get("ip").asText()).isEqualTo("127.0.0.1");
            assertThat(audit.get(1).get("details").get("fields")).extracting(JsonNode::asText)
                    .containsExactly("nombre");
            assertThat(audit.get(6).get("ip").isNull()).isTrue();
            assertThat(audit.get(6).get("userAgent").asText()).isEqualTo("operator");
        }

        @Test
        void current_usage_is_what_get_v1_usage_says() {
            JsonNode usage = export.get("currentUsage");
            JsonNode quota = usage.get("monthlyQuota");
            assertThat(fieldNames(quota)).containsExactly("limit", "used", "remaining", "periodStart", "periodEnd");
            assertThat(quota.get("limit").asLong()).isEqualTo(500_000);
            assertThat(quota.get("used").asLong()).isEqualTo(1);
            assertThat(quota.get("remaining").asLong()).isEqualTo(499_999);
            assertThat(quota.get("periodStart").asText()).isEqualTo("2026-10-01T05:00:00Z");
            assertThat(quota.get("periodEnd").asText()).isEqualTo("2026-11-01T05:00:00Z");
            assertThat(usage.get("rateLimitRpm").asInt()).isEqualTo(600);
            JsonNode usageApi = quipu.body(quipu.get("/v1/usage", key));
            assertThat(quota.get("limit")).isEqualTo(usageApi.get("monthlyQuota").get("limit"));
            assertThat(export.get("usageHistory").isArray()).isTrue();
        }

        @Test
        void meta_says_nothing_was_cut_and_how_many_of_each() {
            JsonNode meta = export.get("_meta");
            assertThat(meta.get("truncated").get("auditLog").asBoolean()).isFalse();
            assertThat(meta.get("truncated").get("webhookDeliveries").asBoolean()).isFalse();
            JsonNode counts = meta.get("counts");
            assertThat(counts.get("apiKeys").asInt()).isEqualTo(3);
            assertThat(counts.get("auth.sessions").asInt()).isEqualTo(1);
            assertThat(counts.get("auth.identities").asInt()).isEqualTo(1);
            assertThat(counts.get("subscription.history").asInt()).isEqualTo(1);
            assertThat(counts.get("webhooks").asInt()).isEqualTo(1);
            assertThat(counts.get("webhooks.deliveries").asInt()).isEqualTo(1);
            assertThat(counts.get("events").asInt()).isEqualTo(5);
            assertThat(counts.get("auditLog").asInt()).isEqualTo(export.get("auditLog").size());
        }

        @Test
        void no_secret_is_anywhere_keys_webhook_secrets_password_hash_or_tokens() {
            String body = response.body();
            String passwordHash = quipu.database.texts("select password_hash from accounts where id = ?",
                    session.accountId()).getFirst();
            assertThat(body).doesNotContain(key, second.get("key").asText(), rotated.get("key").asText(),
                    endpoint.get("secret").asText(), "whsec_", "$argon2", passwordHash, session.refreshToken(),
                    nextRefreshToken, token, session.password());
            assertThat(body).doesNotContainPattern("qk_live_[0-9A-Za-z]{40}");
        }
    }

    @Test
    void usage_shows_by_month_and_by_lima_day_latest_first() {
        TestAccounts.Session session = quipu.accounts.newSession();
        String key = quipu.accounts.issueKey(session.accountId(), Scope.UBIGEOS_READ);
        // 2026-10-06 in Lima (23:30), then 2026-10-07 twice, one of them a 404.
        quipu.clock.set(Instant.parse("2026-10-07T04:30:00Z"));
        assertThat(quipu.get("/v1/ubigeos/150101", key).statusCode()).isEqualTo(200);
        quipu.clock.set(QuipuExtension.START);
        assertThat(quipu.get("/v1/ubigeos/150101", key).statusCode()).isEqualTo(200);
        assertThat(quipu.get("/v1/ubigeos/999999", key).statusCode()).isEqualTo(404);
        assertThat(quipu.get("/v1/ubigeos/15010", key).statusCode()).isEqualTo(400);
        await().atMost(Duration.ofSeconds(10)).until(() -> quipu.body(quipu.get("/v1/usage/daily", key))
                .at("/total/requests").asLong() == 4);

        JsonNode export = quipu.body(quipu.get("/v1/me/export", session.accessToken()));

        JsonNode months = export.get("usageHistory");
        assertThat(months).hasSize(1);
        assertThat(months.get(0).get("month").asText()).isEqualTo("2026-10");
        assertThat(months.get(0).get("used").asLong()).isEqualTo(3);
        JsonNode days = export.get("usageDays");
        assertThat(days).hasSize(2);
        assertThat(fieldNames(days.get(0))).containsExactly("fecha", "requests", "units");
        assertThat(days.get(0).get("fecha").asText()).isEqualTo("2026-10-07");
        assertThat(days.get(0).get("requests").asLong()).isEqualTo(3);
        assertThat(days.get(0).get("units").asLong()).isEqualTo(2);
        assertThat(days.get(1).get("fecha").asText()).isEqualTo("2026-10-06");
        assertThat(days.get(1).get("requests").asLong()).isEqualTo(1);
        assertThat(days.get(1).get("units").asLong()).isEqualTo(1);
        assertThat(export.at("/_meta/counts/usageDays").asInt()).isEqualTo(2);
    }

    @Test
    void only_the_account_holders_access_token_exports() {
        String key = quipu.accounts.newKey(Scope.UBIGEOS_READ, Scope.RUC_READ, Scope.TIPO_CAMBIO_READ,
                Scope.WEBHOOKS_MANAGE);
        assertProblem(quipu.get("/v1/me/export", key), 401, "unauthorized");
        assertProblem(quipu.get("/v1/me/export", null), 401, "unauthorized");
        assertProblem(quipu.get("/v1/me/export", "not-a-token"), 401, "unauthorized");
        assertThat(quipu.database.texts("select count(*) from audit_log where account_id = ? and action = 'export'",
                quipu.accounts.accountOf(key))).containsExactly("0");
    }

    @Test
    void one_export_per_24_hours_on_every_instance_and_each_one_audited() {
        TestAccounts.Session session = quipu.accounts.newSession();
        assertThat(quipu.get("/v1/me/export", session.accessToken()).statusCode()).isEqualTo(200);

        HttpResponse<String> again = quipu.get("/v1/me/export", session.accessToken());
        JsonNode problem = assertProblem(again, 429, "rate_limited");
        assertThat(problem.get("detail").asText()).contains("24 hours");
        assertThat(again.headers().firstValue("Retry-After")).hasValue("86400");
        // The other instance refuses it too: the last export is in the database.
        HttpResponse<String> elsewhere = quipu.peer().get("/v1/me/export", session.accessToken());
        assertProblem(elsewhere, 429, "rate_limited");
        assertThat(elsewhere.headers().firstValue("Retry-After")).hasValue("86400");

        // Access tokens last 15 minutes: log in again after moving the clock.
        quipu.clock.advance(Duration.ofHours(23).plusMinutes(59));
        HttpResponse<String> almost = quipu.get("/v1/me/export", login(session));
        assertProblem(almost, 429, "rate_limited");
        assertThat(almost.headers().firstValue("Retry-After")).hasValue("60");
        quipu.clock.advance(Duration.ofSeconds(59).plusMillis(1));
        HttpResponse<String> lastSecond = quipu.get("/v1/me/export", login(session));
        assertProblem(lastSecond, 429, "rate_limited");
        assertThat(lastSecond.headers().firstValue("Retry-After")).hasValue("1");

        quipu.clock.set(QuipuExtension.START.plus(Duration.ofHours(24)));
        HttpResponse<String> next = quipu.get("/v1/me/export", login(session));
        assertThat(next.statusCode()).as(next.body()).isEqualTo(200);
        assertThat(quipu.body(next).get("user").get("lastExportedAt").asText())
                .isEqualTo(QuipuExtension.START.plus(Duration.ofHours(24)).toString());
        assertThat(quipu.database.texts("""
                        select at from audit_log where account_id = ? and action = 'export' order by at""",
                session.accountId()))
                .hasSize(2);
    }

    @Test
    void the_audit_log_is_cut_at_10000_rows_of_the_last_12_months_newest_first() {
        TestAccounts.Session session = quipu.accounts.newSession();
        Instant cutoff = QuipuExtension.START.atOffset(ZoneOffset.UTC).minusMonths(12).toInstant();
        quipu.database.jdbi().useHandle(h -> {
            // 10,050 rows over the last 12 months (one per 50 minutes, the oldest a little after the cut-off)…
            h.createUpdate("""
                            insert into audit_log (account_id, at, action, ip, user_agent, details)
                            select :account, cast(:start as timestamptz) - n * interval '50 minutes', 'test.action',
                                   '192.0.2.1', 'agent', jsonb_build_object('n', n)
                              from generate_series(1, 10050) n""")
                    .bind("account", session.accountId()).bind("start", QuipuExtension.START).execute();
            // …and rows older than 12 months, which the export never shows.
            h.createUpdate("""
                            insert into audit_log (account_id, at, action, details)
                            select :account, cast(:cutoff as timestamptz) - n * interval '1 second', 'too.old', '{}'
                              from generate_series(1, 5) n""")
                    .bind("account", session.accountId()).bind("cutoff", cutoff).execute();
        });
        assertThat(QuipuExtension.START.minus(Duration.ofMinutes(50L * 10050))).isAfter(cutoff);

        HttpResponse<String> response = quipu.get("/v1/me/export", session.accessToken());

        assertThat(response.statusCode()).isEqualTo(200);
        JsonNode export = quipu.body(response);
        JsonNode audit = export.get("auditLog");
        assertThat(audit).hasSize(10_000);
        List<Instant> ats = new ArrayList<>();
        audit.forEach(row -> ats.add(Instant.parse(row.get("at").asText())));
        assertThat(ats).isSortedAccordingTo((a, b) -> b.compareTo(a));
        // The newest: the export, the login and the signup (all at START), then the inserted rows from n = 1 on.
        assertThat(audit.get(0).get("action").asText()).isEqualTo("export");
        assertThat(audit.get(3).get("details").get("n").asInt()).isEqualTo(1);
        assertThat(audit.get(9_999).get("details").get("n").asInt()).isEqualTo(9_997);
        assertThat(audit).noneMatch(row -> row.get("action").asText().equals("too.old"));
        assertThat(export.get("_meta").get("truncated").get("auditLog").asBoolean()).isTrue();
        assertThat(export.get("_meta").get("counts").get("auditLog").asInt()).isEqualTo(10_000);
    }

    @Test
    void rows_older_than_12_months_are_left_out_without_cutting_the_log() {
        TestAccounts.Session session = quipu.accounts.newSession();
        Instant cutoff = QuipuExtension.START.atOffset(ZoneOffset.UTC).minusMonths(12).toInstant();
        quipu.database.jdbi().useHandle(h -> h.createUpdate("""
                        insert into audit_log (account_id, at, action, details)
                        values (:account, :cutoff, 'oldest.kept', '{}'),
                               (:account, cast(:cutoff as timestamptz) - interval '1 microsecond', 'too.old', '{}')""")
                .bind("account", session.accountId()).bind("cutoff", cutoff).execute());

        JsonNode export = quipu.body(quipu.get("/v1/me/export", session.accessToken()));

        assertThat(export.get("auditLog")).extracting(a -> a.get("action").asText())
                .containsExactly("export", "login", "signup", "oldest.kept");
        assertThat(export.get("_meta").get("truncated").get("auditLog").asBoolean()).isFalse();
    }

    @Test
    void each_endpoint_shows_its_latest_100_deliveries_each_with_its_attempts() {
        TestAccounts.Session session = quipu.accounts.newSession();
        assertThat(quipu.task("set-plan", "email", session.email(), "plan", "starter").statusCode()).isEqualTo(200);
        String key = quipu.accounts.issueKey(session.accountId(), Scope.WEBHOOKS_MANAGE);
        String endpoint = created(quipu.post("/v1/webhooks", key, JSON,
                "{\"url\":\"https://hooks.example.com/many\",\"events\":[\"key.created\"]}")).get("id").asText();
        // 102 deliveries, d1 the newest; d1 was attempted twice, d2 once, the others never.
        quipu.database.jdbi().useHandle(h -> {
            h.createUpdate("""
                            insert into webhook_deliveries (id, endpoint_id, event_id, event_type, body, status, attempts,
                                                            created_at)
                            select 'd' || n, :endpoint, 'evt_d' || n, 'key.created', '{}'::bytea, 'pending', 0,
                                   cast(:start as timestamptz) - n * interval '1 second'
                              from generate_series(1, 102) n""")
                    .bind("endpoint", UUID.fromString(endpoint)).bind("start", QuipuExtension.START).execute();
            h.createUpdate("""
                            insert into webhook_attempts (id, delivery_id, attempted_at, response_code, latency_ms,
                                                          error, response_body)
                            values ('a1', 'd1', :start, 500, 12, 'http_status', 'oops'),
                                   ('a2', 'd1', cast(:start as timestamptz) + interval '1 minute', 200, 8, null, 'ok'),
                                   ('a3', 'd2', :start, null, 10000, 'timeout', null)""")
                    .bind("start", QuipuExtension.START).execute();
        });

        JsonNode export = quipu.body(quipu.get("/v1/me/export", session.accessToken()));

        JsonNode deliveries = export.get("webhooks").get(0).get("deliveries");
        assertThat(deliveries).hasSize(100);
        assertThat(deliveries.get(0).get("id").asText()).isEqualTo("d1");
        assertThat(deliveries.get(99).get("id").asText()).isEqualTo("d100");
        assertThat(deliveries.get(0).get("attemptLog")).extracting(a -> a.get("id").asText())
                .containsExactly("a1", "a2");
        assertThat(deliveries.get(0).get("attemptLog").get(0).get("responseBody").asText()).isEqualTo("oops");
        assertThat(deliveries.get(1).get("attemptLog")).extracting(a -> a.get("error").asText())
                .containsExactly("timeout");
        assertThat(deliveries.get(2).get("attemptLog")).isEmpty();
        assertThat(export.get("_meta").get("truncated").get("webhookDeliveries").asBoolean()).isTrue();
        assertThat(export.get("_meta").get("counts").get("webhooks.deliveries").asInt()).isEqualTo(100);
        assertThat(export.get("_meta").get("counts").get("webhooks.deliveries.attemptLog").asInt()).isEqualTo(3);
    }

    @Test
    void an_export_cut_by_a_database_failure_looks_cut_and_does_not_count() throws Exception {
        TestAccounts.Session session = quipu.accounts.newSession();
        // Some 40 MB of audit log: the server blocks on the unread answer with its cursor open.
        quipu.database.jdbi().useHandle(h -> h.createUpdate("""
                        insert into audit_log (account_id, at, action, details)
                        select :account, cast(:start as timestamptz) - n * interval '1 minute', 'test.bulk',
                               jsonb_build_object('filler', repeat('x', 4000))
                          from generate_series(1, 10000) n""")
                .bind("account", session.accountId()).bind("start", QuipuExtension.START).execute());
        HttpResponse<InputStream> response = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(quipu.uri("/v1/me/export"))
                        .header("Authorization", "Bearer " + session.accessToken()).build(),
                HttpResponse.BodyHandlers.ofInputStream());
        assertThat(response.statusCode()).isEqualTo(200);

        // The export's connection, between two fetches of its cursor over the audit log, is killed (not an idle one
        // of the pool that ran an earlier export).
        List<String> killed = new ArrayList<>();
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            killed.addAll(quipu.database.texts("""
                    select pg_terminate_backend(pid)::text from pg_stat_activity
                     where query like '%from audit_log where account_id = $1 and at >= $2%'
                       and state <> 'idle' and pid <> pg_backend_pid()"""));
            return !killed.isEmpty();
        });
        // The transfer fails: the connection is aborted before the end of the chunked answer.
        try (InputStream body = response.body()) {
            assertThatThrownBy(body::readAllBytes).isInstanceOf(IOException.class);
        }
        // The failed export is given back: the holder may try again at once.
        await().atMost(Duration.ofSeconds(10)).until(() -> quipu.database.texts(
                "select coalesce(last_exported_at::text, 'none') from accounts where id = ?",
                session.accountId()).getFirst().equals("none"));
        HttpResponse<String> again = quipu.get("/v1/me/export", session.accessToken());
        assertThat(again.statusCode()).as(again.body()).isEqualTo(200);
        assertThat(quipu.body(again).get("auditLog")).hasSize(10_000);
    }

    private static String login(TestAccounts.Session session) {
        HttpResponse<String> login = quipu.accounts.login(session.email(), session.password());
        assertThat(login.statusCode()).as(login.body()).isEqualTo(200);
        return quipu.body(login).get("accessToken").asText();
    }

    private static JsonNode created(HttpResponse<String> response) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(201);
        return quipu.body(response);
    }

    private static List<String> fieldNames(JsonNode node) {
        List<String> names = new ArrayList<>();
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            names.add(it.next());
        }
        return names;
    }
}
