package pe.quipu.core.fx;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Objects;

/**
 * One publication: the buy and sell rate of {@code moneda} in PEN on {@code fecha}, as {@code fuente} published it.
 *
 * @param fuente      origin of the datum: a {@link Fuente#code()}, {@code bcrp}, {@code sbs} or {@code sunat}
 * @param capturadoEn when Quipu captured it (kept across re-captures that change nothing)
 */
public record ExchangeRate(Moneda moneda, LocalDate fecha, BigDecimal compra, BigDecimal venta, String fuente,
                           Instant capturadoEn) {

    public static final String FUENTE_BCRP = "bcrp";

    public ExchangeRate {
        Objects.requireNonNull(moneda, "moneda");
        Objects.requireNonNull(fecha, "fecha");
        Objects.requireNonNull(compra, "compra");
        Objects.requireNonNull(venta, "venta");
        Objects.requireNonNull(fuente, "fuente");
        Objects.requireNonNull(capturadoEn, "capturadoEn");
    }
}
