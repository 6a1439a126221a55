package pe.quipu.api.fx;

import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.mapper.RowMapper;
import pe.quipu.core.fx.ExchangeRate;
import pe.quipu.core.fx.ExchangeRateWriter;
import pe.quipu.core.fx.Moneda;
import pe.quipu.core.fx.RateFetch;
import pe.quipu.core.fx.RateSeries;

import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Quipu's copy of each source's rates ({@code exchange_rates}) and of the days it had none
 * ({@code exchange_rate_gaps}), by series (source and currency).
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
     * Stores publications and gap days of one series in one transaction, by the rules of
     * {@link ExchangeRateWriter#save} (unchanged publications keep their {@code capturadoEn}).
     */
    public void save(Collection<ExchangeRate> publications, RateSeries series, Collection<LocalDate> gaps,
                     Instant checkedAt) {
        jdbi.useTransaction(h -> ExchangeRateWriter.save(h, publications, series, gaps, checkedAt));
    }

    /** Stores one answer of a source, its settled gaps included ({@link ExchangeRateWriter#store}), in one transaction. */
    public void store(RateFetch fetch, Instant now) {
        jdbi.useTransaction(h -> ExchangeRateWriter.store(h, fetch, now));
    }

    /** The most recent publication of the series dated on or before {@code fecha}. */
    public Optional<ExchangeRate> latestOnOrBefore(RateSeries series, LocalDate fecha) {
        return jdbi.withHandle(h -> h.createQuery(SELECT + " where fuente = :fuente and moneda = :moneda"
                        + " and fecha <= :fecha order by fecha desc limit 1")
                .bind("fuente", series.fuente().code())
                .bind("moneda", series.moneda().name())
                .bind("fecha", fecha)
                .map(RATE)
                .findOne());
    }

    /** The most recent publication of the series. */
    public Optional<ExchangeRate> latest(RateSeries series) {
        return jdbi.withHandle(h -> h.createQuery(SELECT + " where fuente = :fuente and moneda = :moneda"
                        + " order by fecha desc limit 1")
                .bind("fuente", series.fuente().code())
                .bind("moneda", series.moneda().name())
                .map(RATE)
                .findOne());
    }

    /** How many days in {@code (after, upTo]} are recorded as gaps of the series. */
    public long countGaps(RateSeries series, LocalDate after, LocalDate upTo) {
        return jdbi.withHandle(h -> h.createQuery("""
                        select count(*) from exchange_rate_gaps
                         where fuente = :fuente and moneda = :moneda and fecha > :after and fecha <= :upTo""")
                .bind("fuente", series.fuente().code())
                .bind("moneda", series.moneda().name())
                .bind("after", after)
                .bind("upTo", upTo)
                .mapTo(Long.class)
                .one());
    }

    /**
     * What is known of the series' days {@code [from, to]}: its publications, oldest first, and its recorded gaps, in
     * one statement, so that the two are of one moment.
     */
    public Days days(RateSeries series, LocalDate from, LocalDate to) {
        return jdbi.withHandle(h -> {
            List<ExchangeRate> publications = new ArrayList<>();
            Set<LocalDate> gaps = new HashSet<>();
            h.createQuery("""
                            select moneda, fecha, compra, venta, fuente, capturado_en from exchange_rates
                             where fuente = :fuente and moneda = :moneda and fecha between :from and :to
                            union all
                            select moneda, fecha, null, null, null, null from exchange_rate_gaps
                             where fuente = :fuente and moneda = :moneda and fecha between :from and :to
                            order by fecha""")
                    .bind("fuente", series.fuente().code())
                    .bind("moneda", series.moneda().name())
                    .bind("from", from)
                    .bind("to", to)
                    .map((rs, ctx) -> rs.getString("fuente") == null ? rs.getObject("fecha", LocalDate.class)
                            : RATE.map(rs, ctx))
                    .forEach(row -> {
                        if (row instanceof ExchangeRate rate) {
                            publications.add(rate);
                        } else {
                            gaps.add((LocalDate) row);
                        }
                    });
            return new Days(publications, gaps);
        });
    }

    /**
     * @param publications the publications of a range of days, oldest first
     * @param gaps         the days of that range recorded as having none
     */
    public record Days(List<ExchangeRate> publications, Set<LocalDate> gaps) {
        public Days {
            publications = List.copyOf(publications);
            gaps = Set.copyOf(gaps);
        }
    }
}
