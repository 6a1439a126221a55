package pe.quipu.core.fx;

import java.time.LocalDate;
import java.util.List;
import java.util.Set;

/**
 * What BCRP answered for one currency and date range.
 *
 * @param publications       days with both compra and venta, in date order
 * @param listedWithoutValue days BCRP listed with {@code n.d.} on at least one side (not publications)
 */
public record BcrpFetch(Moneda moneda, LocalDate from, LocalDate to, List<ExchangeRate> publications,
                        Set<LocalDate> listedWithoutValue) {

    public BcrpFetch {
        publications = List.copyOf(publications);
        listedWithoutValue = Set.copyOf(listedWithoutValue);
    }
}
