package pe.quipu.api;

import org.junit.jupiter.api.Test;
import pe.quipu.api.support.TestQuipu;
import pe.quipu.core.db.SchemaMigrations;

import java.sql.Connection;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;

/** The start-up shortcut that skips Liquibase only when its history already holds every bundled changeset. */
class SchemaMigrationsTest {

    private final TestQuipu quipu = TestQuipu.get();

    @Test
    void every_bundled_changeset_is_declared_and_applied() throws Exception {
        assertThat(SchemaMigrations.declaredChangesets())
                .contains("quipu:001-accounts", "quipu:003-registry-content-hash", "quipu:004-audit-log");
        try (Connection c = quipu.connection()) {
            assertThat(SchemaMigrations.upToDate(c)).isTrue();
        }
    }

    @Test
    void a_changeset_missing_from_the_history_sends_the_start_through_liquibase() throws Exception {
        try (Connection c = quipu.connection()) {
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
}
