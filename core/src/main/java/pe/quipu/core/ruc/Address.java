package pe.quipu.core.ruc;

/**
 * The ten address parts of the padrón reducido, in the file's column order, each {@code null} when SUNAT
 * published it empty ({@code -}, {@code ----} or blank). {@code codigoZona} holds the zone kind
 * ({@code URB.}, {@code A.H.}…) and {@code tipoZona} its name, despite the column titles; {@code departamento}
 * is the flat number, not the region. {@link Direccion#compose} turns them into one line.
 */
public record Address(String tipoVia, String nombreVia, String codigoZona, String tipoZona, String numero,
                      String interior, String lote, String departamento, String manzana, String kilometro) {

    public static final Address EMPTY = new Address(null, null, null, null, null, null, null, null, null, null);

    public boolean isEmpty() {
        return equals(EMPTY);
    }
}
