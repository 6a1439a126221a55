package pe.quipu.api.ruc;

import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.mapper.RowMapper;
import pe.quipu.core.ruc.Address;
import pe.quipu.core.ruc.Direccion;
import pe.quipu.core.ruc.RegistryColumns;
import pe.quipu.core.ruc.Ruc;

import java.time.OffsetDateTime;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads Quipu's copy of the taxpayer registry ({@code ruc_registry}); the ETL is the only writer.
 *
 * <p>A statement on the handle with a mapper built once rather than a SQL object, as the exchange-rate reads are (the
 * hot reads of docs/decisions.md, "Jdbi SQL objects"): every lookup runs one of these two queries, and a SQL object's
 * per-call machinery (its handler, a constructor mapper fitted to the result set each time) took RUC lookups from
 * about 3,300 to 1,900 requests a second on bench/metering.sh (2 cores).
 */
public final class RucRegistry {

    private static final String SELECT = "select ruc, " + RegistryColumns.PUBLISHED
            + ", tipo, ciiu, actualizado from ruc_registry ";

    // The address is stored as the raw padrón parts (the ETL's copy stays faithful); it is composed on read.
    private static final RowMapper<RucRecord> RECORD = (rs, ctx) -> new RucRecord(
            rs.getString("ruc"),
            rs.getString("razon_social"),
            rs.getString("estado"),
            rs.getString("condicion"),
            rs.getString("tipo"),
            rs.getString("ubigeo"),
            Direccion.compose(new Address(rs.getString("tipo_via"), rs.getString("nombre_via"),
                    rs.getString("codigo_zona"), rs.getString("tipo_zona"), rs.getString("numero"),
                    rs.getString("interior"), rs.getString("lote"), rs.getString("departamento"),
                    rs.getString("manzana"), rs.getString("kilometro"))),
            rs.getString("ciiu"),
            rs.getObject("actualizado", OffsetDateTime.class).toInstant());

    private final Jdbi jdbi;

    public RucRegistry(Jdbi jdbi) {
        this.jdbi = jdbi;
    }

    public Optional<RucRecord> find(Ruc ruc) {
        return jdbi.withHandle(h -> h.createQuery(SELECT + "where ruc = :ruc")
                .bind("ruc", ruc.value())
                .map(RECORD)
                .findOne());
    }

    /** Up to {@code n} RUCs of the registry, whichever the index gives first (for the start-up warm-up). */
    public List<String> sample(int n) {
        return jdbi.withHandle(h -> h.createQuery("select ruc from ruc_registry limit :n")
                .bind("n", n)
                .mapTo(String.class)
                .list());
    }

    /**
     * The records of these RUCs that the registry holds, keyed by RUC, in one query whatever the batch size.
     * The array is cast to the column's type so that the primary-key index serves the lookup.
     */
    public Map<String, RucRecord> findAll(Collection<Ruc> rucs) {
        String[] values = rucs.stream().map(Ruc::value).distinct().toArray(String[]::new);
        if (values.length == 0) {
            return Map.of();
        }
        return jdbi.withHandle(h -> {
            Map<String, RucRecord> found = new HashMap<>();
            h.createQuery(SELECT + "where ruc = any(cast(:rucs as char(11)[]))")
                    .bindArray("rucs", String.class, (Object[]) values)
                    .map(RECORD)
                    .forEach(r -> found.put(r.ruc(), r));
            return found;
        });
    }
}
