package pe.quipu.etl.fx;

import pe.quipu.core.fx.ExchangeRateWriter;

import java.time.Clock;
import java.time.LocalDate;
import java.util.Map;

/**
 * The days a {@code tipo-cambio} run covers, both ends included: {@code --from}/{@code --to}, by default the
 * last {@value #DEFAULT_DAYS} days up to today in Lima (what the API's own capture covers). {@code --from}
 * alone runs to today; {@code --to} alone covers the {@value #DEFAULT_DAYS} days up to it.
 */
public record DateRange(LocalDate from, LocalDate to) {

    public static final int DEFAULT_DAYS = 10;

    public static DateRange of(Map<String, String> options, Clock clock) {
        LocalDate today = LocalDate.ofInstant(clock.instant(), ExchangeRateWriter.LIMA);
        LocalDate to = options.containsKey("to") ? LocalDate.parse(options.get("to")) : today;
        LocalDate from = options.containsKey("from") ? LocalDate.parse(options.get("from"))
                : to.minusDays(DEFAULT_DAYS - 1L);
        return new DateRange(from, to);
    }
}
