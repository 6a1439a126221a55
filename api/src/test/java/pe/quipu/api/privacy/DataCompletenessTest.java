package pe.quipu.api.privacy;

import org.junit.jupiter.api.Test;
import pe.quipu.core.testing.TestDatabase;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import static java.util.Map.entry;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Nothing Quipu keeps about a person is left out of the export without a decision. The schema is read from
 * {@code information_schema} (the test database, migrated by the changelog) and compared with the decisions below,
 * which docs/data-inventory.md mirrors table by table:
 * <ul>
 *   <li>{@link #EXPORTED}: each table that refers to an account and where each of its columns shows in the export
 *   (or why it does not: a secret, an internal step);</li>
 *   <li>{@link #NO_PERSONAL_DATA}: the few tables that refer to an account but hold nothing personal, and why;</li>
 *   <li>{@link #NO_ACCOUNT}: every other table, which refers to no account.</li>
 * </ul>
 * A table "refers to an account" when it has a foreign key to {@code accounts}, or a column named {@code account_id}
 * or {@code user_id} (or ending in {@code _account_id}, {@code _user_id}: the convention for a reference without a
 * foreign key, such as {@code audit_log}'s, which outlives the account), or a foreign key to a table that refers to an
 * account (a session's refresh tokens, an endpoint's deliveries and their attempts). So a new table, or a new column
 * of an exported table, fails here until someone decides where it goes.
 */
class DataCompletenessTest {

    private static final String IMPLIED = "implied: the exporting account";

    /** Table → column → where it shows in the export, or "not shown: why". Mirrored by docs/data-inventory.md. */
    static final Map<String, Map<String, String>> EXPORTED = Map.ofEntries(
            entry("accounts", Map.of(
                    "id", "user.id",
                    "email", "user.email, auth.profile.email, auth.identities[].email",
                    "nombre", "user.nombre",
                    "password_hash", "not shown: a secret; only whether it is set (auth.profile.passwordSet, "
                            + "auth.identities)",
                    "usage_alert_percent", "user.usageAlertPercent",
                    "is_admin", "user.isAdmin",
                    "deleted_at", "user.deletedAt",
                    "created_at", "user.createdAt, auth.profile.createdAt, auth.identities[].createdAt",
                    "last_exported_at", "user.lastExportedAt",
                    "email_identity", "not shown: derived from email (its normal form, docs/decisions.md, Hardening)")),
            entry("sessions", Map.of(
                    "id", "auth.sessions[].id",
                    "account_id", IMPLIED,
                    "created_at", "auth.sessions[].createdAt, auth.profile.lastLoginAt",
                    "ip", "auth.sessions[].ip",
                    "user_agent", "auth.sessions[].userAgent",
                    "revoked_at", "auth.sessions[].revokedAt")),
            entry("refresh_tokens", Map.of(
                    "token_hash", "not shown: the hash of a secret",
                    "session_id", "implied: the session it belongs to",
                    "issued_at", "auth.sessions[].lastUsedAt (the latest)",
                    "expires_at", "auth.sessions[].expiresAt (the unspent token's)",
                    "used_at", "auth.sessions[].expiresAt (tells the unspent token)")),
            entry("api_keys", Map.ofEntries(
                    entry("id", "apiKeys[].id"),
                    entry("account_id", IMPLIED),
                    entry("name", "apiKeys[].name"),
                    entry("prefix", "apiKeys[].prefix"),
                    entry("key_hash", "not shown: the hash of a secret"),
                    entry("scopes", "apiKeys[].scopes"),
                    entry("status", "apiKeys[].status"),
                    entry("created_at", "apiKeys[].createdAt"),
                    entry("expires_at", "apiKeys[].expiresAt"),
                    entry("revoked_at", "apiKeys[].revokedAt"),
                    entry("last_used_at", "apiKeys[].lastUsedAt"),
                    entry("replaced_by", "apiKeys[].replacedBy"))),
            entry("subscriptions", Map.of(
                    "id", "subscription.current.id, subscription.history[].id",
                    "account_id", IMPLIED,
                    "plan", "subscription…plan, user.plan",
                    "monthly_quota", "subscription…overrides.monthlyQuota, subscription.current.limits",
                    "rate_limit_rpm", "subscription…overrides.rateLimitRpm, subscription.current.limits",
                    "started_at", "subscription…startedAt, subscription.current.period.start",
                    "renews_at", "subscription…renewsAt, subscription.current.period.end",
                    "cancel_at", "subscription…cancelAt",
                    "ended_at", "subscription.history[].endedAt")),
            entry("usage_counters", Map.of(
                    "account_id", IMPLIED,
                    "period", "usageHistory[].month",
                    "used", "usageHistory[].used (currentUsage counts the month under way as GET /v1/usage does)",
                    "alerted_at", "usageHistory[].alertedAt")),
            entry("usage_days", Map.of(
                    "account_id", IMPLIED,
                    "day", "usageDays[].fecha",
                    "requests", "usageDays[].requests",
                    "units", "usageDays[].units")),
            entry("audit_log", Map.of(
                    "id", "not shown: a row number; rows are newest first",
                    "account_id", IMPLIED,
                    "at", "auditLog[].at",
                    "action", "auditLog[].action",
                    "ip", "auditLog[].ip",
                    "user_agent", "auditLog[].userAgent",
                    "details", "auditLog[].details")),
            entry("events", Map.of(
                    "seq", "not shown: the outbox's order; events are newest first",
                    "id", "events[].id, webhooks[].deliveries[].eventId",
                    "type", "events[].type",
                    "account_id", IMPLIED,
                    "data", "events[].data",
                    "created_at", "events[].createdAt",
                    "fanned_out_at", "not shown: when the worker made deliveries of it (an internal step)")),
            entry("webhook_endpoints", Map.ofEntries(
                    entry("id", "webhooks[].id"),
                    entry("account_id", IMPLIED),
                    entry("url", "webhooks[].url"),
                    entry("host", "webhooks[].host"),
                    entry("port", "webhooks[].port"),
                    entry("pinned_address", "webhooks[].pinnedAddress"),
                    entry("active", "webhooks[].active"),
                    entry("disabled_reason", "webhooks[].disabledReason"),
                    entry("secret", "not shown: a secret"),
                    entry("previous_secret", "not shown: a secret"),
                    entry("previous_secret_until", "webhooks[].previousSecretExpiresAt"),
                    entry("created_at", "webhooks[].createdAt"),
                    entry("updated_at", "webhooks[].updatedAt"),
                    entry("failing_since", "webhooks[].failingSince"))),
            entry("watchlists", Map.of(
                    "id", "not shown: the list's row id (internal; the name identifies it)",
                    "account_id", IMPLIED,
                    "name", "watchlists[].name",
                    "rucs", "watchlists[].count",
                    "created_at", "watchlists[].createdAt",
                    "updated_at", "watchlists[].updatedAt")),
            entry("watchlist_rucs", Map.of(
                    "watchlist_id", "implied: the list",
                    "account_id", IMPLIED,
                    "ruc", "watchlists[].rucs[]",
                    "added_at", "not shown: when each RUC joined its list, which only bounds the list's changes"
                            + " (the list's updatedAt shows its last write)")),
            entry("idempotency_keys", Map.of(
                    "account_id", IMPLIED,
                    "key_id", "not shown: a hash of an Idempotency-Key the holder chose (a random value)",
                    "fingerprint", "not shown: a hash of a request the holder sent",
                    "status", "not shown: the status of an answer the holder already received",
                    "answer", "not shown: a copy of an answer the holder already received (its key or endpoint is"
                            + " under apiKeys or webhooks), encrypted under the holder's Idempotency-Key, which"
                            + " Quipu does not keep: Quipu cannot read it; deleted after 24 hours",
                    "created_at", "not shown: when that request came",
                    "expires_at", "not shown: 24 hours after it")),
            entry("watchlist_changes", Map.of(
                    "watchlist_id", "implied: the list",
                    "at", "not shown: the time of a change of SUNAT's public log (ruc_changes), of a RUC on the list",
                    "change_id", "not shown: which change of SUNAT's public log (ruc_changes) concerns a RUC on the"
                            + " list; the list's RUCs are under watchlists[].rucs[]",
                    "ruc", "not shown: the RUC of that change, on the list, which watchlists[].rucs[] shows")),
            entry("webhook_subscriptions", Map.of(
                    "endpoint_id", "implied: the endpoint",
                    "event_type", "webhooks[].events",
                    "since_seq", "not shown: the outbox position the subscription starts after (internal)")),
            entry("webhook_deliveries", Map.ofEntries(
                    entry("id", "webhooks[].deliveries[].id"),
                    entry("endpoint_id", "implied: the endpoint"),
                    entry("event_id", "webhooks[].deliveries[].eventId"),
                    entry("event_type", "webhooks[].deliveries[].eventType"),
                    entry("body", "not shown: the envelope of event eventId, whose data is under events (an "
                            + "etl.run.* event to an admin's endpoint is about a data load, not a person)"),
                    entry("status", "webhooks[].deliveries[].status"),
                    entry("attempts", "webhooks[].deliveries[].attempts"),
                    entry("next_attempt_at", "webhooks[].deliveries[].nextAttemptAt"),
                    entry("lease_owner", "not shown: which worker instance holds it (internal)"),
                    entry("lease_until", "not shown: until when a worker holds it (internal)"),
                    entry("last_attempt_at", "webhooks[].deliveries[].lastAttemptAt"),
                    entry("response_code", "webhooks[].deliveries[].responseCode"),
                    entry("latency_ms", "webhooks[].deliveries[].latencyMs"),
                    entry("error", "webhooks[].deliveries[].error"),
                    entry("created_at", "webhooks[].deliveries[].createdAt"))),
            entry("webhook_attempts", Map.of(
                    "id", "webhooks[].deliveries[].attemptLog[].id",
                    "delivery_id", "implied: the delivery",
                    "attempted_at", "webhooks[].deliveries[].attemptLog[].attemptedAt",
                    "response_code", "webhooks[].deliveries[].attemptLog[].responseCode",
                    "latency_ms", "webhooks[].deliveries[].attemptLog[].latencyMs",
                    "error", "webhooks[].deliveries[].attemptLog[].error",
                    "response_body", "webhooks[].deliveries[].attemptLog[].responseBody")));

    /** Tables that refer to an account but hold no personal data, and why. Mirrored by docs/data-inventory.md. */
    static final Map<String, String> NO_PERSONAL_DATA = Map.of(
            "rate_windows", "request counts per minute, shared by the instances to apply the per-minute limit and"
                    + " deleted two minutes after their minute; what they add up to is in usage_counters");

    /** Tables that refer to no account. Mirrored by docs/data-inventory.md. */
    static final Map<String, String> NO_ACCOUNT = Map.ofEntries(
            entry("ruc_registry", "SUNAT's public padrón"),
            entry("ruc_registry_words", "the distinct words of the padrón's names, for search by name"),
            entry("ruc_changes", "the registry's change log: what each load of SUNAT's public data changed, per RUC;"
                    + " kept for changes.retention"),
            entry("dataset_loads", "when each public dataset was last loaded"),
            entry("sunat_padrones", "SUNAT's public lists (retención, buenos contribuyentes, percepción)"),
            entry("locales_anexos", "SUNAT's public annex premises"),
            entry("ubigeos", "INEI's public catalogue"),
            entry("exchange_rates", "BCRP's, SBS's and SUNAT's public rates"),
            entry("exchange_rate_gaps", "days a source of rates published nothing"),
            entry("token_denylist", "refused access-token ids (jti) and session ids (sid): random ids, no person,"
                    + " deleted when the tokens expire (minutes)"),
            entry("metering_instances", "the API instances alive"),
            entry("batch_job_instance", "ETL run history (Spring Batch)"),
            entry("batch_job_execution", "ETL run history (Spring Batch)"),
            entry("batch_job_execution_params", "ETL run history (Spring Batch)"),
            entry("batch_step_execution", "ETL run history (Spring Batch)"),
            entry("batch_step_execution_context", "ETL run history (Spring Batch)"),
            entry("batch_job_execution_context", "ETL run history (Spring Batch)"),
            entry("databasechangelog", "Liquibase's record of the schema"),
            entry("databasechangeloglock", "Liquibase's lock"));

    private static final TestDatabase DATABASE = TestDatabase.get();

    @Test
    void every_table_that_refers_to_an_account_is_exported_or_holds_no_personal_data() {
        Set<String> referring = tablesReferringToAnAccount();
        assertThat(referring).contains("accounts", "audit_log", "webhook_attempts");

        Set<String> decided = new TreeSet<>(EXPORTED.keySet());
        decided.addAll(NO_PERSONAL_DATA.keySet());
        assertThat(new TreeSet<>(referring))
                .as("""
                        Tables that refer to an account. A new one must be decided: add it to \
                        DataCompletenessTest.EXPORTED (and to the export) or to NO_PERSONAL_DATA with the reason, \
                        and to docs/data-inventory.md""")
                .isEqualTo(decided);
    }

    @Test
    void every_column_of_an_exported_table_shows_in_the_export_or_is_withheld_for_a_reason() {
        Map<String, Set<String>> actual = new TreeMap<>();
        for (String table : EXPORTED.keySet()) {
            actual.put(table, columns(table));
        }
        Map<String, Set<String>> decided = new TreeMap<>();
        EXPORTED.forEach((table, columns) -> decided.put(table, new TreeSet<>(columns.keySet())));
        assertThat(actual)
                .as("""
                        Columns of the exported tables. A new column must be decided: export it (ExportWriter) and \
                        say where in DataCompletenessTest.EXPORTED, or say there why it is not shown, and update \
                        docs/data-inventory.md""")
                .isEqualTo(decided);
    }

    @Test
    void every_other_table_refers_to_no_account() {
        Set<String> others = new TreeSet<>(allTables());
        others.removeAll(tablesReferringToAnAccount());
        assertThat(others)
                .as("""
                        Tables that refer to no account. A new one must be decided: if it holds anything about a \
                        person, give it an account_id (and export it); otherwise add it to \
                        DataCompletenessTest.NO_ACCOUNT and to docs/data-inventory.md""")
                .isEqualTo(new TreeSet<>(NO_ACCOUNT.keySet()));
    }

    @Test
    void the_data_inventory_describes_every_table() throws IOException {
        String inventory = Files.readString(Path.of("..", "docs", "data-inventory.md"));
        List<String> missing = new ArrayList<>();
        Set<String> tables = new TreeSet<>(EXPORTED.keySet());
        tables.addAll(NO_PERSONAL_DATA.keySet());
        tables.addAll(NO_ACCOUNT.keySet());
        for (String table : tables) {
            if (!inventory.contains("| `" + table + "` |")) {
                missing.add(table);
            }
        }
        assertThat(missing).as("tables without a row (| `name` |) in docs/data-inventory.md").isEmpty();
        for (Map.Entry<String, Map<String, String>> table : EXPORTED.entrySet()) {
            for (String column : table.getValue().keySet()) {
                assertThat(inventory).as("docs/data-inventory.md names %s.%s", table.getKey(), column)
                        .contains("`" + column + "`");
            }
        }
    }

    /**
     * The tables that refer to an account: foreign keys to {@code accounts} or columns named by the convention, then
     * every table with a foreign key to one of those, until nothing is added.
     */
    private static Set<String> tablesReferringToAnAccount() {
        Set<String> referring = new HashSet<>(DATABASE.texts("""
                select distinct c.table_name
                  from information_schema.columns c
                  join information_schema.tables t
                    on t.table_schema = c.table_schema and t.table_name = c.table_name
                 where c.table_schema = current_schema() and t.table_type = 'BASE TABLE'
                   and c.column_name ~ '(^|_)(account|user)_id$'"""));
        referring.add("accounts");
        List<List<String>> foreignKeys = DATABASE.rows("""
                        select distinct tc.table_name, ccu.table_name
                          from information_schema.table_constraints tc
                          join information_schema.constraint_column_usage ccu
                            on ccu.constraint_schema = tc.constraint_schema
                           and ccu.constraint_name = tc.constraint_name
                         where tc.constraint_type = 'FOREIGN KEY' and tc.table_schema = current_schema()""",
                rs -> List.of(rs.getString(1), rs.getString(2)));
        boolean added = true;
        while (added) {
            added = false;
            for (List<String> fk : foreignKeys) {
                if (referring.contains(fk.get(1)) && referring.add(fk.get(0))) {
                    added = true;
                }
            }
        }
        return referring;
    }

    private static Set<String> allTables() {
        return new TreeSet<>(DATABASE.texts("""
                select table_name from information_schema.tables
                 where table_schema = current_schema() and table_type = 'BASE TABLE'"""));
    }

    private static Set<String> columns(String table) {
        return new TreeSet<>(DATABASE.texts("""
                select column_name from information_schema.columns
                 where table_schema = current_schema() and table_name = ?""", table));
    }
}
