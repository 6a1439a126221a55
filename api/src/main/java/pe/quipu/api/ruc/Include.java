package pe.quipu.api.ruc;

import pe.quipu.api.domain.DomainException.InvalidInput;
import pe.quipu.api.domain.Text;

import java.util.List;

/**
 * What a lookup asks for beyond the registry's record (contract §10): {@code padrones}, SUNAT's lists the RUC is
 * on, and {@code anexos}, its other premises. Given as {@code ?include=padrones,anexos} (or the parameter repeated)
 * and as {@code "include": [...]} in a batch body. Names are exact; empty items of a comma list are ignored, so
 * {@code include=} asks for nothing more.
 */
public record Include(boolean padrones, boolean anexos) {

    public static final Include NOTHING = new Include(false, false);
    static final String NAMES = "padrones, anexos";

    /** True when the answer is the registry's record alone, byte for byte. */
    public boolean nothing() {
        return !padrones && !anexos;
    }

    /** The cache key's suffix: one form per set, whatever the order it was asked in. */
    String key() {
        return (padrones ? "p" : "") + (anexos ? "a" : "");
    }

    /** @param field where the names came from, for the error ({@code include}, {@code include[2]}) */
    static Include of(List<String> values, String field) {
        boolean padrones = false;
        boolean anexos = false;
        if (values != null) {
            for (String value : values) {
                for (String name : value.split(",", -1)) {
                    String item = name.strip();
                    switch (item) {
                        case "" -> {
                        }
                        case "padrones" -> padrones = true;
                        case "anexos" -> anexos = true;
                        default -> throw new InvalidInput(field, Text.of("ruc.include.unknown_name", shown(item), NAMES));
                    }
                }
            }
        }
        return padrones || anexos ? new Include(padrones, anexos) : NOTHING;
    }

    // The input goes back to the caller; a long or odd name is cut rather than reflected whole.
    private static String shown(String item) {
        String cut = item.length() > 30 ? item.substring(0, 30) + "…" : item;
        return cut.replaceAll("[^\\p{L}\\p{N}_ .-]", "?");
    }
}
