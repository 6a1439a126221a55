package pe.quipu.core.ubigeo;

import java.util.Objects;

/**
 * One district of the INEI catalogue. The code is {@code DDPPdd}: department, province, district. Names are
 * kept exactly as INEI writes them (title case, accents: {@code Áncash}).
 */
public record Ubigeo(String code, String departamento, String provincia, String distrito) {

    public Ubigeo {
        if (!isCode(code, 6)) {
            throw new IllegalArgumentException("a ubigeo code is 6 digits, not " + code);
        }
        Objects.requireNonNull(departamento, "departamento");
        Objects.requireNonNull(provincia, "provincia");
        Objects.requireNonNull(distrito, "distrito");
    }

    /** Positions 1-2 of the code. */
    public String departamentoCode() {
        return code.substring(0, 2);
    }

    /** Positions 1-4 of the code. */
    public String provinciaCode() {
        return code.substring(0, 4);
    }

    /**
     * Whether {@code value} is exactly {@code length} ASCII digits. Deliberately not {@link Character#isDigit},
     * which would let other scripts' digits through into codes that are only ever 0-9.
     */
    public static boolean isCode(String value, int length) {
        if (value == null || value.length() != length) {
            return false;
        }
        for (int i = 0; i < length; i++) {
            char c = value.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }
}
