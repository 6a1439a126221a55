package pe.quipu.core.ruc;

import org.jdbi.v3.core.Handle;
import org.jdbi.v3.sqlobject.customizer.BindMap;
import org.jdbi.v3.sqlobject.customizer.Define;
import org.jdbi.v3.sqlobject.statement.SqlBatch;
import pe.quipu.core.db.DatasetLoads;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes a handful of padrón records into {@code ruc_registry} on the caller's handle and transaction.
 * A record whose content is unchanged keeps its {@code actualizado} (and so its ETag); a changed or new one
 * gets {@code now}. For small loads (the bundled sample, tests); the ETL loads the full file with COPY.
 */
public final class RegistryUpsert {

    private static final String VALUES = RegistryColumns.each(column -> ":" + column, ", ");
    private static final String UPDATES = RegistryColumns.each(column -> column + " = excluded." + column, ", ");
    private static final String IN_SERVICE = RegistryColumns.each(column -> "ruc_registry." + column, ", ");
    private static final String INCOMING = RegistryColumns.each(column -> "excluded." + column, ", ");

    private RegistryUpsert() {
    }

    /** @return how many rows were inserted or changed */
    public static int upsert(Handle handle, Collection<PadronRecord> records, Instant now) {
        ContentHash hash = new ContentHash();
        List<Map<String, Object>> rows = new ArrayList<>(records.size());
        for (PadronRecord r : records) {
            Map<String, Object> row = new HashMap<>();
            List<String> values = RegistryColumns.values(r);
            for (int i = 0; i < values.size(); i++) {
                row.put(RegistryColumns.LIST.get(i), values.get(i));
            }
            row.put("ruc", r.ruc().value());
            row.put("content_hash", hash.of(r));
            row.put("actualizado", now);
            rows.add(row);
        }
        int written = 0;
        for (int count : handle.attach(RegistryRows.class).upsert(rows, RegistryColumns.PUBLISHED, VALUES, UPDATES,
                IN_SERVICE, INCOMING)) {
            written += Math.max(count, 0);
        }
        DatasetLoads.recordRegistry(handle, now);
        return written;
    }

    interface RegistryRows {
        /**
         * A row changes only when what the padrón publishes changed; it then no longer holds the padrón line it was
         * loaded from, so the next padrón load compares that RUC's line by content ({@code line_hash} null).
         */
        @SqlBatch("""
                insert into ruc_registry (ruc, <columns>, content_hash, actualizado)
                values (:ruc, <values>, :content_hash, :actualizado)
                on conflict (ruc) do update set <updates>, content_hash = excluded.content_hash,
                    actualizado = excluded.actualizado, line_hash = null
                where (<inService>) is distinct from (<incoming>)""")
        int[] upsert(@BindMap List<Map<String, Object>> rows, @Define("columns") String columns,
                     @Define("values") String values, @Define("updates") String updates,
                     @Define("inService") String inService, @Define("incoming") String incoming);
    }
}
