package pe.quipu.api.support;

import pe.quipu.core.ruc.Address;
import pe.quipu.core.ruc.PadronLine;
import pe.quipu.core.ruc.PadronRecord;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

/**
 * The 61 real lines of SUNAT's padrón sample, read as the ETL reads the real file (ISO-8859-1, the core
 * parser) and written into {@code ruc_registry}. Loading is an upsert, so every test class may call it: the
 * application and its database are shared by the whole test JVM.
 */
public final class PadronFixtures {

    private static final String SAMPLE = "/padron/padron_reducido_ruc.sample.txt";

    private PadronFixtures() {
    }

    /** The sample's records in file order, header skipped. */
    public static List<PadronRecord> records() {
        try (InputStream in = PadronFixtures.class.getResourceAsStream(SAMPLE)) {
            if (in == null) {
                throw new IllegalStateException("missing test resource " + SAMPLE);
            }
            BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.ISO_8859_1));
            List<PadronRecord> records = new ArrayList<>();
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                if (!line.isEmpty() && !PadronLine.isHeader(line)) {
                    records.add(PadronLine.parse(line));
                }
            }
            return records;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Upserts every sample record with {@code actualizado} and no tipo/ciiu (the padrón has neither), and
     * records the load in {@code dataset_loads}. Rows a test changed are put back as published.
     */
    public static void load(TestQuipu quipu, Instant actualizado) {
        List<PadronRecord> records = records();
        try (Connection c = quipu.connection()) {
            c.setAutoCommit(false);
            try (PreparedStatement upsert = c.prepareStatement("""
                    insert into ruc_registry (ruc, razon_social, estado, condicion, ubigeo, tipo_via, nombre_via,
                        codigo_zona, tipo_zona, numero, interior, lote, departamento, manzana, kilometro, tipo, ciiu,
                        actualizado)
                    values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, null, null, ?)
                    on conflict (ruc) do update set razon_social = excluded.razon_social, estado = excluded.estado,
                        condicion = excluded.condicion, ubigeo = excluded.ubigeo, tipo_via = excluded.tipo_via,
                        nombre_via = excluded.nombre_via, codigo_zona = excluded.codigo_zona,
                        tipo_zona = excluded.tipo_zona, numero = excluded.numero, interior = excluded.interior,
                        lote = excluded.lote, departamento = excluded.departamento, manzana = excluded.manzana,
                        kilometro = excluded.kilometro, tipo = null, ciiu = null, actualizado = excluded.actualizado
                    """)) {
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
                    upsert.setObject(i, utc(actualizado));
                    upsert.addBatch();
                }
                upsert.executeBatch();
            }
            try (PreparedStatement load = c.prepareStatement("""
                    insert into dataset_loads (dataset, rows, loaded_at) values ('padron', ?, ?)
                    on conflict (dataset) do update set rows = excluded.rows, loaded_at = excluded.loaded_at
                    """)) {
                load.setLong(1, records.size());
                load.setObject(2, utc(actualizado));
                load.executeUpdate();
            }
            c.commit();
        } catch (SQLException e) {
            throw new IllegalStateException("could not load the padrón sample", e);
        }
    }

    // An explicit offset: a java.sql.Timestamp would go through the JVM's default time zone.
    private static OffsetDateTime utc(Instant instant) {
        return instant.atOffset(ZoneOffset.UTC);
    }
}
