package pe.quipu.core.fx;

import java.time.LocalDate;

/** Where the rates of some series come from: BCRP's statistics API (BCRP's and SBS's series), SUNAT's publication. */
public interface RateSource {

    /**
     * @return the publications the source lists in {@code [from, to]} for the series, and the listed days without one
     * @throws RatesUnavailableException when no attempt gave a usable answer within the source's bound
     */
    RateFetch fetch(RateSeries series, LocalDate from, LocalDate to);
}
