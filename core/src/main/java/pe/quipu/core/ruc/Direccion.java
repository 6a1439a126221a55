package pe.quipu.core.ruc;

/** Composes the published fiscal address ({@code direccion}) from the padrón parts, as contract §3 orders them. */
public final class Direccion {

    private Direccion() {
    }

    /**
     * TIPO DE VÍA, NOMBRE DE VÍA, {@code NRO. }NÚMERO, {@code INT. }INTERIOR, {@code DPTO. }DEPARTAMENTO,
     * {@code MZA. }MANZANA, {@code LOTE. }LOTE, {@code KM. }KILÓMETRO, CÓDIGO DE ZONA, TIPO DE ZONA; empty parts
     * left out, one space between parts. {@code null} when every part is empty.
     */
    public static String compose(Address address) {
        StringBuilder out = new StringBuilder(64);
        append(out, null, address.tipoVia());
        append(out, null, address.nombreVia());
        append(out, "NRO. ", address.numero());
        append(out, "INT. ", address.interior());
        append(out, "DPTO. ", address.departamento());
        append(out, "MZA. ", address.manzana());
        append(out, "LOTE. ", address.lote());
        append(out, "KM. ", address.kilometro());
        append(out, null, address.codigoZona());
        append(out, null, address.tipoZona());
        return out.isEmpty() ? null : out.toString();
    }

    private static void append(StringBuilder out, String label, String part) {
        // Parts from the parser are already null when empty; the blank check guards hand-built addresses.
        if (part == null || part.isBlank()) {
            return;
        }
        if (!out.isEmpty()) {
            out.append(' ');
        }
        if (label != null) {
            out.append(label);
        }
        out.append(part.strip());
    }
}
