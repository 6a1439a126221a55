package pe.quipu.core.db;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.ZoneOffset;

/**
 * {@code dataset_loads}: what the last complete load of each dataset ("padron", "padron-extendido", "ubigeo")
 * put in service, read by {@code /v1/status} and the data-freshness health check. Recorded in the load's own
 * transaction.
 */
public final class DatasetLoads {

    private DatasetLoads() {
    }

    public static void record(Connection c, String dataset, long rows, Instant loadedAt) throws SQLException {
        try (PreparedStatement load = c.prepareStatement("""
                insert into dataset_loads (dataset, rows, loaded_at) values (?, ?, ?)
                on conflict (dataset) do update set rows = excluded.rows, loaded_at = excluded.loaded_at""")) {
            load.setString(1, dataset);
            load.setLong(2, rows);
            // An explicit offset: a java.sql.Timestamp would go through the JVM's default time zone.
            load.setObject(3, loadedAt.atOffset(ZoneOffset.UTC));
            load.executeUpdate();
        }
    }

    /** Records the registry's current size as the padrón's load (small loads, such as the bundled sample). */
    public static void recordRegistry(Connection c, Instant loadedAt) throws SQLException {
        long rows;
        try (Statement s = c.createStatement(); var rs = s.executeQuery("select count(*) from ruc_registry")) {
            rs.next();
            rows = rs.getLong(1);
        }
        record(c, "padron", rows, loadedAt);
    }
}
