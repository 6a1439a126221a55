package pe.quipu.core.ruc;

import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The columns of {@code ruc_registry} that the padrón reducido publishes, defined once for every statement that
 * names them: the ETL's staging table and its publication, the small-load upsert, the API's lookup and the
 * fingerprint of {@link ContentHash}. Their order is the fingerprint's: name, estado, condición, ubigeo, then the
 * ten address parts in the file's column order. (The migrations, plain SQL, spell them once more.)
 */
public final class RegistryColumns {

    /** The fourteen published columns, comma-separated, for SQL written as a constant (SQL object annotations). */
    public static final String PUBLISHED = "razon_social, estado, condicion, ubigeo, tipo_via, nombre_via, "
            + "codigo_zona, tipo_zona, numero, interior, lote, departamento, manzana, kilometro";

    /** {@link #PUBLISHED} as a list. */
    public static final List<String> LIST = Arrays.stream(PUBLISHED.split(", ")).toList();

    private RegistryColumns() {
    }

    /** A record's published values, in the columns' order; null where SUNAT published nothing. */
    public static List<String> values(PadronRecord r) {
        Address a = r.address();
        return Arrays.asList(r.razonSocial(), r.estado(), r.condicion(), r.ubigeo(), a.tipoVia(), a.nombreVia(),
                a.codigoZona(), a.tipoZona(), a.numero(), a.interior(), a.lote(), a.departamento(), a.manzana(),
                a.kilometro());
    }

    /** Each column through {@code format}, joined with {@code separator}: {@code c -> "s." + c}, ", ". */
    public static String each(Function<String, String> format, String separator) {
        return LIST.stream().map(format).collect(Collectors.joining(separator));
    }
}
