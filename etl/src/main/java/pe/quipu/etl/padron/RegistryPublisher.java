package pe.quipu.etl.padron;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.ZoneOffset;

/**
 * Builds the new registry from the staging table and puts it in service, all in one transaction: readers keep
 * the previous {@code ruc_registry} until the commit, and a run that fails or is killed before it leaves that
 * registry untouched (PostgreSQL rolls the new table back with the transaction).
 *
 * <p>Each staged row is joined to the registry in service by RUC: an unchanged fingerprint keeps the old
 * {@code actualizado} (so the ETag stays), anything else takes the run's time. {@code tipo} and {@code ciiu}
 * are carried over, since they come from another file (the padron-extendido job).
 */
public final class RegistryPublisher {

    static final String NEW = "ruc_registry_new";
    static final String OLD = "ruc_registry_old";
    private static final String CONTENT = "razon_social, estado, condicion, ubigeo, tipo_via, nombre_via,"
            + " codigo_zona, tipo_zona, numero, interior, lote, departamento, manzana, kilometro";
    private static final Logger LOG = LoggerFactory.getLogger(RegistryPublisher.class);

    /** What a publication did. */
    public record Published(long rows, long changed) {
    }

    private final DataSource dataSource;

    public RegistryPublisher(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    public Published publish(Instant now) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try {
                Published published = build(c, now);
                swap(c, published.rows(), now);
                c.commit();
                return published;
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        }
    }

    private Published build(Connection c, Instant now) throws SQLException {
        try (Statement s = c.createStatement()) {
            // Room for the join's hash table and the primary key's sort, for this transaction only.
            s.execute("set local work_mem = '256MB'");
            s.execute("set local maintenance_work_mem = '512MB'");
            // Same columns, types, defaults and NOT NULLs as the table in service: the API's prepared
            // statements keep their result shape across the swap.
            s.execute("create table " + NEW + " (like ruc_registry including defaults including constraints)");
        }
        long rows;
        try (PreparedStatement insert = c.prepareStatement("insert into " + NEW + " (ruc, " + CONTENT
                + ", tipo, ciiu, content_hash, actualizado) select s.ruc, " + prefixed("s.")
                + ", o.tipo, o.ciiu, s.content_hash,"
                + " case when o.content_hash = s.content_hash then o.actualizado else ? end"
                + " from " + PadronStager.STAGE + " s left join ruc_registry o on o.ruc = s.ruc")) {
            insert.setObject(1, now.atOffset(ZoneOffset.UTC));
            rows = insert.executeUpdate();
        }
        long changed;
        try (Statement s = c.createStatement()) {
            long t = System.nanoTime();
            s.execute("alter table " + NEW + " add constraint " + NEW + "_pkey primary key (ruc)");
            LOG.info("indexed the new registry in {} ms", (System.nanoTime() - t) / 1_000_000);
            try (PreparedStatement count = c.prepareStatement(
                    "select count(*) from " + NEW + " where actualizado = ?")) {
                count.setObject(1, now.atOffset(ZoneOffset.UTC));
                try (var rs = count.executeQuery()) {
                    rs.next();
                    changed = rs.getLong(1);
                }
            }
        }
        return new Published(rows, changed);
    }

    private void swap(Connection c, long rows, Instant now) throws SQLException {
        try (Statement s = c.createStatement()) {
            // Readers wait for these few catalogue changes only, not for the build above.
            s.execute("alter table ruc_registry rename to " + OLD);
            s.execute("alter table " + NEW + " rename to ruc_registry");
            s.execute("drop table " + OLD);
            s.execute("alter index " + NEW + "_pkey rename to ruc_registry_pkey");
            s.execute("drop table " + PadronStager.STAGE);
        }
        try (PreparedStatement load = c.prepareStatement("""
                insert into dataset_loads (dataset, rows, loaded_at) values ('padron', ?, ?)
                on conflict (dataset) do update set rows = excluded.rows, loaded_at = excluded.loaded_at""")) {
            load.setLong(1, rows);
            load.setObject(2, now.atOffset(ZoneOffset.UTC));
            load.executeUpdate();
        }
    }

    private static String prefixed(String prefix) {
        return prefix + CONTENT.replace(", ", ", " + prefix);
    }
}
