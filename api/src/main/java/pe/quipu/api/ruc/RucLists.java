package pe.quipu.api.ruc;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import pe.quipu.core.ruc.Address;
import pe.quipu.core.ruc.Direccion;
import pe.quipu.core.ubigeo.Ubigeo;

import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Reads SUNAT's lists ({@code sunat_padrones}) and premises ({@code locales_anexos}) of some RUCs, each in one query
 * whatever their number; the ETL's jobs are the only writers. Premises get the catalogue's names of their ubigeo and
 * their address composed by the registry's rule (contract §3).
 */
public final class RucLists {

    /** One list a RUC is on. */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    @JsonPropertyOrder({"padron", "desde", "resolucion"})
    public record Padron(String padron, LocalDate desde, String resolucion) {
    }

    /** One of a RUC's other premises. */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    @JsonPropertyOrder({"ubigeo", "departamento", "provincia", "distrito", "direccion"})
    public record Anexo(String ubigeo, String departamento, String provincia, String distrito, String direccion) {
    }

    private static final Comparator<Padron> BY_PADRON = Comparator.comparing(Padron::padron);
    private static final Comparator<Anexo> BY_UBIGEO_THEN_DIRECCION =
            Comparator.comparing(Anexo::ubigeo, Comparator.nullsLast(Comparator.naturalOrder()))
                    .thenComparing(Anexo::direccion, Comparator.nullsLast(Comparator.naturalOrder()));

    private final Jdbi jdbi;
    private final Function<String, Optional<Ubigeo>> ubigeos;

    /** @param ubigeos the catalogue in service, by code */
    public RucLists(Jdbi jdbi, Function<String, Optional<Ubigeo>> ubigeos) {
        this.jdbi = jdbi;
        this.ubigeos = ubigeos;
    }

    /** The lists of each RUC that is on one, ordered by list name. */
    Map<String, List<Padron>> padrones(Collection<String> rucs) {
        Map<String, List<Padron>> found = new HashMap<>();
        for (Rows.PadronRow row : jdbi.withExtension(Rows.class, rows -> rows.padrones(rucs.toArray(String[]::new)))) {
            found.computeIfAbsent(row.ruc(), k -> new ArrayList<>())
                    .add(new Padron(row.padron(), row.desde(), row.resolucion()));
        }
        found.values().forEach(list -> list.sort(BY_PADRON));
        return found;
    }

    /** The premises of each RUC that has some, ordered by ubigeo then direccion. */
    Map<String, List<Anexo>> anexos(Collection<String> rucs) {
        Map<String, List<Anexo>> found = new HashMap<>();
        for (Rows.AnexoRow row : jdbi.withExtension(Rows.class, rows -> rows.anexos(rucs.toArray(String[]::new)))) {
            Optional<Ubigeo> place = row.ubigeo() == null ? Optional.empty() : ubigeos.apply(row.ubigeo());
            found.computeIfAbsent(row.ruc(), k -> new ArrayList<>()).add(new Anexo(row.ubigeo(),
                    place.map(Ubigeo::departamento).orElse(null),
                    place.map(Ubigeo::provincia).orElse(null),
                    place.map(Ubigeo::distrito).orElse(null),
                    Direccion.compose(row.address())));
        }
        found.values().forEach(list -> list.sort(BY_UBIGEO_THEN_DIRECCION));
        return found;
    }

    /** Both reads take every RUC asked for in one query. */
    interface Rows {
        record PadronRow(String ruc, String padron, LocalDate desde, String resolucion) {
        }

        record AnexoRow(String ruc, String ubigeo, String tipoVia, String nombreVia, String codigoZona,
                        String tipoZona, String numero, String kilometro, String interior, String lote,
                        String departamento, String manzana) {
            Address address() {
                return new Address(tipoVia, nombreVia, codigoZona, tipoZona, numero, interior, lote, departamento,
                        manzana, kilometro);
            }
        }

        @SqlQuery("""
                select ruc, padron, desde, resolucion from sunat_padrones
                 where ruc = any(cast(:rucs as char(11)[]))""")
        @RegisterConstructorMapper(PadronRow.class)
        List<PadronRow> padrones(String[] rucs);

        @SqlQuery("""
                select ruc, ubigeo, tipo_via, nombre_via, codigo_zona, tipo_zona, numero, kilometro, interior, lote,
                       departamento, manzana
                  from locales_anexos
                 where ruc = any(cast(:rucs as char(11)[]))""")
        @RegisterConstructorMapper(AnexoRow.class)
        List<AnexoRow> anexos(String[] rucs);
    }
}
