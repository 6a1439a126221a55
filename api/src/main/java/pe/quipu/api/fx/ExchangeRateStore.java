package pe.quipu.api.fx;

import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import pe.quipu.core.fx.BcrpFetch;
import pe.quipu.core.fx.ExchangeRate;
import pe.quipu.core.fx.ExchangeRateWriter;
import pe.quipu.core.fx.Moneda;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Collection;
import java.util.Optional;

/** Quipu's copy of BCRP's rates ({@code exchange_rates}) and of the days it had none ({@code exchange_rate_gaps}). */
public final class ExchangeRateStore {

    private final Jdbi jdbi;

    public ExchangeRateStore(Jdbi jdbi) {
        this.jdbi = jdbi;
    }

    /**
     * Stores publications and gap days in one transaction, by the rules of {@link ExchangeRateWriter#save}
     * (unchanged publications keep their {@code capturadoEn}).
     */
    public void save(Collection<ExchangeRate> publications, Moneda moneda, Collection<LocalDate> gaps,
                     Instant checkedAt) {
        jdbi.useTransaction(h -> ExchangeRateWriter.save(h, publications, moneda, gaps, checkedAt));
    }

    /** Stores one BCRP answer, its settled gaps included ({@link ExchangeRateWriter#store}), in one transaction. */
    public void store(BcrpFetch fetch, Instant now) {
        jdbi.useTransaction(h -> ExchangeRateWriter.store(h, fetch, now));
    }

    /** The most recent publication dated on or before {@code fecha}. */
    public Optional<ExchangeRate> latestOnOrBefore(Moneda moneda, LocalDate fecha) {
        return jdbi.withHandle(h -> h.attach(RateRows.class).latestOnOrBefore(moneda.name(), fecha))
                .map(RateRow::rate);
    }

    /** The most recent publication of all. */
    public Optional<ExchangeRate> latest(Moneda moneda) {
        return jdbi.withHandle(h -> h.attach(RateRows.class).latest(moneda.name())).map(RateRow::rate);
    }

    /** How many days in {@code (after, upTo]} are recorded as gaps. */
    public long countGaps(Moneda moneda, LocalDate after, LocalDate upTo) {
        return jdbi.withHandle(h -> h.attach(RateRows.class).countGaps(moneda.name(), after, upTo));
    }

    public record RateRow(String moneda, LocalDate fecha, BigDecimal compra, BigDecimal venta, String fuente,
                   Instant capturadoEn) {
        ExchangeRate rate() {
            // char(3): strip guards against padding should the column ever widen.
            return new ExchangeRate(Moneda.valueOf(moneda.strip()), fecha, compra, venta, fuente, capturadoEn);
        }
    }

    @RegisterConstructorMapper(RateRow.class)
    interface RateRows {
        String SELECT = "select moneda, fecha, compra, venta, fuente, capturado_en from exchange_rates ";

        @SqlQuery(SELECT + "where moneda = :moneda and fecha <= :fecha order by fecha desc limit 1")
        Optional<RateRow> latestOnOrBefore(String moneda, LocalDate fecha);

        @SqlQuery(SELECT + "where moneda = :moneda order by fecha desc limit 1")
        Optional<RateRow> latest(String moneda);

        @SqlQuery("""
                select count(*) from exchange_rate_gaps
                 where moneda = :moneda and fecha > :after and fecha <= :upTo""")
        long countGaps(String moneda, LocalDate after, LocalDate upTo);
    }
}
