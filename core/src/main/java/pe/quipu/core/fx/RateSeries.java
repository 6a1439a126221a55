package pe.quipu.core.fx;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One source's rates of one currency: what a cache proof, a fetch, a gap or a capture is about. Only the pairs a
 * source publishes exist (SBS and SUNAT publish USD only).
 */
public record RateSeries(Fuente fuente, Moneda moneda) {

    public RateSeries {
        Objects.requireNonNull(fuente, "fuente");
        Objects.requireNonNull(moneda, "moneda");
        if (!fuente.serves(moneda)) {
            throw new IllegalArgumentException(fuente.code() + " publishes no " + moneda + " rate");
        }
    }

    public static RateSeries of(Fuente fuente, Moneda moneda) {
        return new RateSeries(fuente, moneda);
    }

    /** Every series Quipu serves: BCRP's USD and EUR, SBS's USD, SUNAT's USD. */
    public static List<RateSeries> all() {
        List<RateSeries> all = new ArrayList<>();
        for (Fuente fuente : Fuente.values()) {
            fuente.monedas().forEach(moneda -> all.add(new RateSeries(fuente, moneda)));
        }
        return List.copyOf(all);
    }

    /** The series of one source. */
    public static List<RateSeries> of(Fuente fuente) {
        return fuente.monedas().stream().map(moneda -> new RateSeries(fuente, moneda)).toList();
    }

    /** {@code bcrp.USD}: the name of the series where one string must do (freshness, logs). */
    public String key() {
        return fuente.code() + "." + moneda.name();
    }

    @Override
    public String toString() {
        return key();
    }
}
