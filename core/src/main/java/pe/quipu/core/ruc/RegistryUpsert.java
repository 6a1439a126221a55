package pe.quipu.core.ruc;

import pe.quipu.core.db.DatasetLoads;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Collection;

/**
 * Writes a handful of padrón records into {@code ruc_registry} on the caller's connection and transaction.
 * A record whose content is unchanged keeps its {@code actualizado} (and so its ETag); a changed or new one
 * gets {@code now}. For small loads (the bundled sample, tests); the ETL loads the full file with COPY.
 */
public final class RegistryUpsert {

    private RegistryUpsert() {
    }

    /** @return how many rows were inserted or changed */
    public static int upsert(Connection connection, Collection<PadronRecord> records, Instant now) throws SQLException {
        int written = 0;
        try (PreparedStatement upsert = connection.prepareStatement("""
                insert into ruc_registry (ruc, razon_social, estado, condicion, ubigeo, tipo_via, nombre_via,
                    codigo_zona, tipo_zona, numero, interior, lote, departamento, manzana, kilometro, content_hash,
                    actualizado)
                values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                on conflict (ruc) do update set razon_social = excluded.razon_social, estado = excluded.estado,
                    condicion = excluded.condicion, ubigeo = excluded.ubigeo, tipo_via = excluded.tipo_via,
                    nombre_via = excluded.nombre_via, codigo_zona = excluded.codigo_zona,
                    tipo_zona = excluded.tipo_zona, numero = excluded.numero, interior = excluded.interior,
                    lote = excluded.lote, departamento = excluded.departamento, manzana = excluded.manzana,
                    kilometro = excluded.kilometro, content_hash = excluded.content_hash,
                    actualizado = excluded.actualizado
                where (ruc_registry.razon_social, ruc_registry.estado, ruc_registry.condicion, ruc_registry.ubigeo,
                       ruc_registry.tipo_via, ruc_registry.nombre_via, ruc_registry.codigo_zona,
                       ruc_registry.tipo_zona, ruc_registry.numero, ruc_registry.interior, ruc_registry.lote,
                       ruc_registry.departamento, ruc_registry.manzana, ruc_registry.kilometro)
                  is distinct from
                      (excluded.razon_social, excluded.estado, excluded.condicion, excluded.ubigeo,
                       excluded.tipo_via, excluded.nombre_via, excluded.codigo_zona, excluded.tipo_zona,
                       excluded.numero, excluded.interior, excluded.lote, excluded.departamento,
                       excluded.manzana, excluded.kilometro)
                """)) {
            OffsetDateTime at = now.atOffset(ZoneOffset.UTC);
            ContentHash hash = new ContentHash();
            for (PadronRecord r : records) {
                Address a = r.address();
                int i = 1;
                upsert.setString(i++, r.ruc().value());
                upsert.setString(i++, r.razonSocial());
                upsert.setString(i++, r.estado());
                upsert.setString(i++, r.condicion());
                upsert.setString(i++, r.ubigeo());
                for (String part : new String[] {a.tipoVia(), a.nombreVia(), a.codigoZona(), a.tipoZona(),
                        a.numero(), a.interior(), a.lote(), a.departamento(), a.manzana(), a.kilometro()}) {
                    upsert.setString(i++, part);
                }
                upsert.setLong(i++, hash.of(r));
                // An explicit offset: a java.sql.Timestamp would go through the JVM's default time zone.
                upsert.setObject(i, at);
                upsert.addBatch();
            }
            for (int count : upsert.executeBatch()) {
                written += Math.max(count, 0);
            }
        }
        DatasetLoads.recordRegistry(connection, now);
        return written;
    }
}
