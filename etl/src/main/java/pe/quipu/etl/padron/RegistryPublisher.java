package pe.quipu.etl.padron;

import pe.quipu.core.db.DatasetLoads;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

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
    /** The columns the padrón provides; the others (tipo, ciiu…) are carried over from the registry in service. */
    private static final Set<String> STAGED = Set.of("razon_social", "estado", "condicion", "ubigeo", "tipo_via",
            "nombre_via", "codigo_zona", "tipo_zona", "numero", "interior", "lote", "departamento", "manzana",
            "kilometro");
    private static final Logger LOG = LoggerFactory.getLogger(RegistryPublisher.class);

    /** What a publication did. */
    public record Published(long rows) {
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
        }
        // CREATE TABLE AS, unlike INSERT ... SELECT, may run the join with parallel workers. Its columns follow
        // the table in service, in its order and with its types, so the API's prepared statements keep their
        // result shape across the swap; a column this job does not know is carried over from the old row.
        List<String> select = new ArrayList<>();
        List<String> constraints = new ArrayList<>();
        try (PreparedStatement columns = c.prepareStatement("""
                select column_name, format_type(atttypid, atttypmod), attnotnull
                  from information_schema.columns
                  join pg_attribute on attrelid = 'ruc_registry'::regclass and attname = column_name
                 where table_schema = current_schema() and table_name = 'ruc_registry'
                 order by ordinal_position""")) {
            try (ResultSet rs = columns.executeQuery()) {
                while (rs.next()) {
                    String column = rs.getString(1);
                    String type = rs.getString(2);
                    String value = switch (column) {
                        case "actualizado" -> "case when o.content_hash = s.content_hash then o.actualizado else ? end";
                        case "ruc", "content_hash" -> "s." + column;
                        default -> STAGED.contains(column) ? "s." + column : "o." + column;
                    };
                    select.add("cast(" + value + " as " + type + ") as " + column);
                    if (rs.getBoolean(3) && !column.equals("ruc")) {
                        constraints.add("alter column " + column + " set not null");
                    }
                }
            }
        }
        long rows;
        try (PreparedStatement create = c.prepareStatement("create table " + NEW + " as select "
                + String.join(", ", select) + " from " + PadronStager.STAGE
                + " s left join ruc_registry o on o.ruc = s.ruc")) {
            create.setObject(1, now.atOffset(ZoneOffset.UTC));
            rows = create.executeUpdate();
        }
        try (Statement s = c.createStatement()) {
            long t = System.nanoTime();
            // One statement: the NOT NULL checks ride on the primary key's scan of the table.
            constraints.add("add constraint " + NEW + "_pkey primary key (ruc)");
            s.execute("alter table " + NEW + " " + String.join(", ", constraints));
            LOG.info("indexed the new registry in {} ms", (System.nanoTime() - t) / 1_000_000);
        }
        return new Published(rows);
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
        DatasetLoads.record(c, "padron", rows, now);
    }

}
