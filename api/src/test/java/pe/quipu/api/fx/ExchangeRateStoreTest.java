package pe.quipu.api.fx;

import org.junit.jupiter.api.Test;
import pe.quipu.core.fx.ExchangeRate;
import pe.quipu.core.fx.Fuente;
import pe.quipu.core.fx.Moneda;
import pe.quipu.core.fx.RateSeries;
import pe.quipu.core.testing.TestDatabase;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The store on the real database. Dates used: EUR 2021-03 (no HTTP test uses EUR that early). */
class ExchangeRateStoreTest {

    private static final Instant FIRST = Instant.parse("2021-03-02T15:00:00Z");
    private static final Instant SECOND = Instant.parse("2021-03-02T15:30:00Z");
    private static final Instant THIRD = Instant.parse("2021-03-03T15:00:00Z");

    private static final RateSeries EUR = RateSeries.of(Fuente.BCRP, Moneda.EUR);

    private final ExchangeRateStore store = new ExchangeRateStore(TestDatabase.get().jdbi());

    @Test
    void an_unchanged_publication_keeps_its_capture_time_and_a_revised_one_takes_the_new() {
        LocalDate fecha = LocalDate.of(2021, 3, 1);
        store.save(List.of(rate(fecha, "4.381", "4.512", FIRST)), EUR, List.of(), FIRST);
        store.save(List.of(rate(fecha, "4.381", "4.512", SECOND)), EUR, List.of(), SECOND);

        assertThat(store.latestOnOrBefore(EUR, fecha)).hasValue(rate(fecha, "4.381", "4.512", FIRST));

        store.save(List.of(rate(fecha, "4.382", "4.512", THIRD)), EUR, List.of(), THIRD);

        assertThat(store.latestOnOrBefore(EUR, fecha)).hasValue(rate(fecha, "4.382", "4.512", THIRD));
    }

    @Test
    void gaps_are_counted_and_a_gap_that_gets_published_stops_being_one() {
        LocalDate friday = LocalDate.of(2021, 3, 12);
        LocalDate saturday = friday.plusDays(1);
        LocalDate sunday = friday.plusDays(2);
        LocalDate monday = friday.plusDays(3);
        store.save(List.of(rate(friday, "4.401", "4.533", FIRST)), EUR, List.of(saturday, sunday, monday), FIRST);

        assertThat(store.countGaps(EUR, friday, monday)).isEqualTo(3);
        assertThat(store.latestOnOrBefore(EUR, monday)).map(ExchangeRate::fecha).hasValue(friday);

        store.save(List.of(rate(monday, "4.410", "4.540", SECOND)), EUR, List.of(), SECOND);

        assertThat(store.countGaps(EUR, friday, monday)).isEqualTo(2);
        assertThat(store.latestOnOrBefore(EUR, monday)).map(ExchangeRate::fecha).hasValue(monday);
        assertThat(store.latestOnOrBefore(EUR, sunday)).map(ExchangeRate::fecha).hasValue(friday);
        assertThat(store.latest(EUR)).isPresent();
    }

    private static ExchangeRate rate(LocalDate fecha, String compra, String venta, Instant capturadoEn) {
        return new ExchangeRate(Moneda.EUR, fecha, new BigDecimal(compra), new BigDecimal(venta), "bcrp", capturadoEn);
    }
}
