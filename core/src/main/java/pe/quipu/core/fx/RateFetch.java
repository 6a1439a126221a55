package pe.quipu.core.fx;

import java.time.LocalDate;
import java.util.List;
import java.util.Set;

/**
 * What a source answered for one series and date range.
 *
 * @param publications       days with both compra and venta, in date order
 * @param listedWithoutValue days the source listed with a value on one side only, or none (not publications)
 */
public record RateFetch(RateSeries series, LocalDate from, LocalDate to, List<ExchangeRate> publications,
                        Set<LocalDate> listedWithoutValue) {

    public RateFetch {
        publications = List.copyOf(publications);
        listedWithoutValue = Set.copyOf(listedWithoutValue);
        for (ExchangeRate p : publications) {
            if (!p.fuente().equals(series.fuente().code()) || p.moneda() != series.moneda()) {
                throw new IllegalArgumentException("a " + p.fuente() + "." + p.moneda() + " publication in a fetch of "
                        + series);
            }
        }
    }
}
