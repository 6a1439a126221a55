package pe.quipu.api.platform;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.domain.LimaCalendar;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.core.db.SchemaMigrations;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The start-up shortcut that skips Liquibase only when its history already holds every bundled changeset. */
class SchemaMigrationsTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    @Test
    void every_bundled_changeset_is_declared_and_applied() throws Exception {
        assertThat(SchemaMigrations.declaredChangesets())
                .contains("quipu:001-accounts", "quipu:003-registry-content-hash", "quipu:004-audit-log",
                        "quipu:021-email-identity-backfill");
        try (Connection c = quipu.database.connection()) {
            assertThat(SchemaMigrations.upToDate(c)).isTrue();
        }
    }

    @Test
    void a_changeset_missing_from_the_history_sends_the_start_through_liquibase() throws Exception {
        try (Connection c = quipu.database.connection()) {
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.executeUpdate("delete from databasechangelog where id = '004-audit-log'");
                assertThat(SchemaMigrations.upToDate(c)).isFalse();
            } finally {
                c.rollback();
            }
            assertThat(SchemaMigrations.upToDate(c)).isTrue();
        }
    }

    @Test
    void an_account_from_before_subscriptions_gets_the_free_plan_and_its_keys_work_again() throws Exception {
        UUID account = UUID.randomUUID();
        try (Connection c = quipu.database.connection(); Statement s = c.createStatement()) {
            // As create-key made accounts before migration 004: no subscription.
            s.executeUpdate("insert into accounts (id, email, created_at) values ('" + account + "', 'old-" + account
                    + "@quipu.test', now())");
        }
        String key = quipu.accounts.issueKey(account, Scope.UBIGEOS_READ);
        assertThat(quipu.get("/v1/ubigeos/150101", key).statusCode()).isEqualTo(401);

        String changeset = new String(getClass().getClassLoader()
                .getResourceAsStream("quipu/db/changes/009-subscriptions-for-existing-accounts.sql").readAllBytes(),
                StandardCharsets.UTF_8);
        try (Connection c = quipu.database.connection(); Statement s = c.createStatement()) {
            s.executeUpdate(changeset);
            try (ResultSet rs = s.executeQuery("select plan, renews_at from subscriptions where account_id = '"
                    + account + "' and ended_at is null")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString("plan")).isEqualTo("free");
                assertThat(rs.getObject("renews_at", OffsetDateTime.class).toInstant())
                        .isEqualTo(LimaCalendar.nextMonthStart(Instant.now()));
            }
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> quipu.get("/v1/ubigeos/150101", key).statusCode() == 200);
    }
}
