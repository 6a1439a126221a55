package pe.quipu.api.ruc;

import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import pe.quipu.core.ruc.Address;
import pe.quipu.core.ruc.Direccion;
import pe.quipu.core.ruc.RegistryColumns;
import pe.quipu.core.ruc.Ruc;

import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Reads Quipu's copy of the taxpayer registry ({@code ruc_registry}); the ETL is the only writer. */
public final class RucRegistry {

    private final Jdbi jdbi;

    public RucRegistry(Jdbi jdbi) {
        this.jdbi = jdbi;
    }

    public Optional<RucRecord> find(Ruc ruc) {
        return jdbi.withHandle(h -> h.attach(RegistryRows.class).find(ruc.value())).map(RegistryRow::record);
    }

    /**
     * The records of these RUCs that the registry holds, keyed by RUC, in one query whatever the batch size.
     */
    public Map<String, RucRecord> findAll(Collection<Ruc> rucs) {
        String[] values = rucs.stream().map(Ruc::value).distinct().toArray(String[]::new);
        if (values.length == 0) {
            return Map.of();
        }
        Map<String, RucRecord> found = new HashMap<>();
        jdbi.withHandle(h -> h.attach(RegistryRows.class).findAll(values))
                .forEach(row -> found.put(row.ruc(), row.record()));
        return found;
    }

    /** A row as stored: the padrón's raw address parts (the ETL's copy stays faithful), composed on read. */
    public record RegistryRow(String ruc, String razonSocial, String estado, String condicion, String ubigeo, String tipoVia,
                       String nombreVia, String codigoZona, String tipoZona, String numero, String interior,
                       String lote, String departamento, String manzana, String kilometro, String tipo, String ciiu,
                       Instant actualizado) {

        RucRecord record() {
            return new RucRecord(ruc, razonSocial, estado, condicion, tipo, ubigeo,
                    Direccion.compose(new Address(tipoVia, nombreVia, codigoZona, tipoZona, numero, interior, lote,
                            departamento, manzana, kilometro)),
                    ciiu, actualizado);
        }
    }

    @RegisterConstructorMapper(RegistryRow.class)
    interface RegistryRows {
        String SELECT = "select ruc, " + RegistryColumns.PUBLISHED + ", tipo, ciiu, actualizado from ruc_registry ";

        @SqlQuery(SELECT + "where ruc = :ruc")
        Optional<RegistryRow> find(String ruc);

        /** The array is cast to the column's type so that the primary-key index serves the lookup. */
        @SqlQuery(SELECT + "where ruc = any(cast(:rucs as char(11)[]))")
        List<RegistryRow> findAll(String[] rucs);
    }
}
