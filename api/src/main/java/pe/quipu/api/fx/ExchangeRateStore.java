package pe.quipu.api.fx;

import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.PreparedBatch;
import pe.quipu.core.fx.ExchangeRate;
import pe.quipu.core.fx.Moneda;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
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
     * Stores publications and gap days in one transaction. A publication already stored with the same
     * values is left alone, so its {@code capturadoEn} keeps saying when Quipu first had that datum; a
     * changed value (BCRP revises) replaces it with the new capture time.
     */
    public void save(Collection<ExchangeRate> publications, Moneda moneda, Collection<LocalDate> gaps,
                     Instant checkedAt) {
        jdbi.useTransaction(h -> {
            if (!publications.isEmpty()) {
                PreparedBatch upsert = h.prepareBatch("""
                        insert into exchange_rates (moneda, fecha, compra, venta, fuente, capturado_en)
                        values (:moneda, :fecha, :compra, :venta, :fuente, :capturadoEn)
                        on conflict (moneda, fecha) do update
                           set compra = excluded.compra, venta = excluded.venta, fuente = excluded.fuente,
                               capturado_en = excluded.capturado_en
                         where exchange_rates.compra <> excluded.compra
                            or exchange_rates.venta <> excluded.venta
                            or exchange_rates.fuente <> excluded.fuente""");
                for (ExchangeRate p : publications) {
                    upsert.bind("moneda", p.moneda().name())
                            .bind("fecha", p.fecha())
                            .bind("compra", p.compra())
                            .bind("venta", p.venta())
                            .bind("fuente", p.fuente())
                            .bind("capturadoEn", utc(p.capturadoEn()))
                            .add();
                }
                upsert.execute();
                // A day once seen without a value that now has one is no longer a gap.
                PreparedBatch ungap = h.prepareBatch("delete from exchange_rate_gaps where moneda = :moneda and fecha = :fecha");
                publications.forEach(p -> ungap.bind("moneda", p.moneda().name()).bind("fecha", p.fecha()).add());
                ungap.execute();
            }
            if (!gaps.isEmpty()) {
                PreparedBatch gap = h.prepareBatch("""
                        insert into exchange_rate_gaps (moneda, fecha, checked_at) values (:moneda, :fecha, :checkedAt)
                        on conflict (moneda, fecha) do update set checked_at = excluded.checked_at""");
                gaps.forEach(d -> gap.bind("moneda", moneda.name()).bind("fecha", d).bind("checkedAt", utc(checkedAt)).add());
                gap.execute();
            }
        });
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

    private static OffsetDateTime utc(Instant instant) {
        return instant.atOffset(ZoneOffset.UTC);
    }
}
