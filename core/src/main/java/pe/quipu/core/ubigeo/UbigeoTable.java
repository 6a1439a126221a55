package pe.quipu.core.ubigeo;

import pe.quipu.core.db.DatasetLoads;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;

/**
 * The {@code ubigeos} table. Whoever writes it (the API's first-start seeding, the ETL's ubigeo job) holds
 * {@link #LOCK_KEY} for the transaction, and a replacement tells every API instance to reload its in-memory
 * copy through {@link #CHANGED_CHANNEL}.
 */
public final class UbigeoTable {

    /** The transaction-level advisory lock taken by every writer of the table. */
    public static final long LOCK_KEY = 0x7175_6970_7562_6967L; // "quipubig"
    /** NOTIFY channel: the catalogue in the table changed. */
    public static final String CHANGED_CHANNEL = "quipu_ubigeos";

    private UbigeoTable() {
    }

    /**
     * Replaces the whole catalogue in the caller's transaction: readers see the old catalogue until it commits,
     * then the new one; the notification is delivered at commit.
     */
    public static void replace(Connection c, List<Ubigeo> districts, Instant now) throws SQLException {
        try (PreparedStatement lock = c.prepareStatement("select pg_advisory_xact_lock(?)")) {
            lock.setLong(1, LOCK_KEY);
            lock.execute();
        }
        try (Statement s = c.createStatement()) {
            s.executeUpdate("delete from ubigeos");
        }
        try (PreparedStatement insert = c.prepareStatement(
                "insert into ubigeos (code, departamento, provincia, distrito) values (?, ?, ?, ?)")) {
            for (Ubigeo u : districts) {
                insert.setString(1, u.code());
                insert.setString(2, u.departamento());
                insert.setString(3, u.provincia());
                insert.setString(4, u.distrito());
                insert.addBatch();
            }
            insert.executeBatch();
        }
        DatasetLoads.record(c, "ubigeo", districts.size(), now);
        try (Statement s = c.createStatement()) {
            s.execute("notify " + CHANGED_CHANNEL);
        }
    }
}
