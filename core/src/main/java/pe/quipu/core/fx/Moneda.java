package pe.quipu.core.fx;

import java.util.Arrays;
import java.util.Optional;

/** The currencies Quipu quotes against PEN (which source publishes which: {@link Fuente}). */
public enum Moneda {
    USD,
    EUR;

    /** Exact, case-sensitive: the interface spec names the values "USD" or "EUR". */
    public static Optional<Moneda> fromCode(String code) {
        return Arrays.stream(values()).filter(m -> m.name().equals(code)).findFirst();
    }
}
