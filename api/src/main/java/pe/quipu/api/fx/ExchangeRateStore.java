package pe.quipu.api.fx;

import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import pe.quipu.core.fx.BcrpFetch;
import pe.quipu.core.fx.ExchangeRate;
import pe.quipu.core.fx.ExchangeRateWriter;
import pe.quipu.core.fx.Moneda;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.util.Collection;
import java.util.Optional;

/** Quipu's copy of BCRP's rates ({@code exchange_rates}) and of the days it had none ({@code exchange_rate_gaps}). */
public final class ExchangeRateStore {

    private static final String COLUMNS = "moneda, fecha, compra, venta, fuente, capturado_en";

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
        write(() -> jdbi.useTransaction(h -> ExchangeRateWriter.save(h.getConnection(), publications, moneda, gaps, checkedAt)));
    }

    /** Stores one BCRP answer, its settled gaps included ({@link ExchangeRateWriter#store}), in one transaction. */
    public void store(BcrpFetch fetch, Instant now) {
        write(() -> jdbi.useTransaction(h -> ExchangeRateWriter.store(h.getConnection(), fetch, now)));
    }

    private interface Write {
        void run() throws SQLException;
    }

    /** The writer speaks plain JDBC; a failure surfaces as unchecked, like Jdbi's own. */
    private static void write(Write write) {
        try {
            write.run();
        } catch (SQLException e) {
            throw new IllegalStateException("could not store exchange rates: " + e.getMessage(), e);
        }
    }

    /** The most recent publication dated on or before {@code fecha}. */
    public Optional<ExchangeRate> latestOnOrBefore(Moneda moneda, LocalDate fecha) {
        return jdbi.withHandle(h -> h.createQuery("select " + COLUMNS + " from exchange_rates"
                        + " where moneda = :moneda and fecha <= :fecha order by fecha desc limit 1")
                .bind("moneda", moneda.name())
                .bind("fecha", fecha)
                .map((rs, ctx) -> rate(rs))
                .findOne());
    }

    /** The most recent publication of all. */
    public Optional<ExchangeRate> latest(Moneda moneda) {
        return jdbi.withHandle(h -> h.createQuery("select " + COLUMNS + " from exchange_rates"
                        + " where moneda = :moneda order by fecha desc limit 1")
                .bind("moneda", moneda.name())
                .map((rs, ctx) -> rate(rs))
                .findOne());
    }

    /** How many days in {@code (after, upTo]} are recorded as gaps. */
    public long countGaps(Moneda moneda, LocalDate after, LocalDate upTo) {
        return jdbi.withHandle(h -> countGaps(h, moneda, after, upTo));
    }

    private static long countGaps(Handle h, Moneda moneda, LocalDate after, LocalDate upTo) {
        return h.createQuery("select count(*) from exchange_rate_gaps where moneda = :moneda and fecha > :after and fecha <= :upTo")
                .bind("moneda", moneda.name())
                .bind("after", after)
                .bind("upTo", upTo)
                .mapTo(Long.class)
                .one();
    }

    private static ExchangeRate rate(ResultSet rs) throws SQLException {
        return new ExchangeRate(
                // char(3): strip guards against padding should the column ever widen.
                Moneda.valueOf(rs.getString("moneda").strip()),
                rs.getObject("fecha", LocalDate.class),
                rs.getBigDecimal("compra"),
                rs.getBigDecimal("venta"),
                rs.getString("fuente"),
                rs.getObject("capturado_en", OffsetDateTime.class).toInstant());
    }
}
