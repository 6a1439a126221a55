package pe.quipu.api.fx;

import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.mapper.RowMapper;
import pe.quipu.core.fx.BcrpFetch;
import pe.quipu.core.fx.ExchangeRate;
import pe.quipu.core.fx.ExchangeRateWriter;
import pe.quipu.core.fx.Moneda;

import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.util.Collection;
import java.util.Optional;

/**
 * Quipu's copy of BCRP's rates ({@code exchange_rates}) and of the days it had none ({@code exchange_rate_gaps}).
 *
 * <p>Writes go through core's {@link ExchangeRateWriter}. The reads answer {@code GET /v1/tipo-cambio}, one or two
 * per request, so they are statements on the handle with a mapper built once rather than a SQL object, whose
 * per-call machinery took that endpoint from about 1,750 to 1,000-1,300 requests a second (2 cores).
 */
public final class ExchangeRateStore {

    private static final String SELECT = "select moneda, fecha, compra, venta, fuente, capturado_en from exchange_rates";

    private static final RowMapper<ExchangeRate> RATE = (rs, ctx) -> new ExchangeRate(
            // char(3): strip guards against padding should the column ever widen.
            Moneda.valueOf(rs.getString("moneda").strip()),
            rs.getObject("fecha", LocalDate.class),
            rs.getBigDecimal("compra"),
            rs.getBigDecimal("venta"),
            rs.getString("fuente"),
            rs.getObject("capturado_en", OffsetDateTime.class).toInstant());

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
        return jdbi.withHandle(h -> h.createQuery(SELECT + " where moneda = :moneda and fecha <= :fecha"
                        + " order by fecha desc limit 1")
                .bind("moneda", moneda.name())
                .bind("fecha", fecha)
                .map(RATE)
                .findOne());
    }

    /** The most recent publication of all. */
    public Optional<ExchangeRate> latest(Moneda moneda) {
        return jdbi.withHandle(h -> h.createQuery(SELECT + " where moneda = :moneda order by fecha desc limit 1")
                .bind("moneda", moneda.name())
                .map(RATE)
                .findOne());
    }

    /** How many days in {@code (after, upTo]} are recorded as gaps. */
    public long countGaps(Moneda moneda, LocalDate after, LocalDate upTo) {
        return jdbi.withHandle(h -> h.createQuery("""
                        select count(*) from exchange_rate_gaps
                         where moneda = :moneda and fecha > :after and fecha <= :upTo""")
                .bind("moneda", moneda.name())
                .bind("after", after)
                .bind("upTo", upTo)
                .mapTo(Long.class)
                .one());
    }
}
