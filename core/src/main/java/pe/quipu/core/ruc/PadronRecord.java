package pe.quipu.core.ruc;

/**
 * One taxpayer as the padrón reducido publishes it, values trimmed and empty markers turned into {@code null}.
 * The padrón carries no taxpayer type nor activity code; those come from another SUNAT file.
 *
 * @param razonSocial never null: a line without a name is rejected
 * @param ubigeo      six digits, or null when published as {@code -}
 */
public record PadronRecord(Ruc ruc, String razonSocial, String estado, String condicion, String ubigeo,
                           Address address) {

    /** The fiscal address as one line, or null when every part is empty. */
    public String direccion() {
        return Direccion.compose(address);
    }
}
