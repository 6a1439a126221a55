package pe.quipu.core.fx;

import org.jdbi.v3.core.Handle;
import org.jdbi.v3.sqlobject.customizer.Bind;
import org.jdbi.v3.sqlobject.customizer.BindMethods;
import org.jdbi.v3.sqlobject.statement.SqlBatch;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Writes what a source answered into {@code exchange_rates} and {@code exchange_rate_gaps}, on the caller's
 * handle and transaction, each row under its source ({@code fuente}). The one implementation of the storage rules,
 * shared by the API (on-demand fetches, the in-process capture) and the ETL's {@code tipo-cambio} job.
 */
public final class ExchangeRateWriter {

    /** BCRP, SBS and SUNAT publish for Lima's business days. */
    public static final ZoneId LIMA = ZoneId.of("America/Lima");

    private ExchangeRateWriter() {
    }

    /**
     * The days of the fetched range to record as gaps (the source was asked and had nothing): every day without a
     * publication, whether the source listed it without a value or not at all (weekends, usually), but only settled
     * days, before yesterday in Lima: the source may still publish today's rate, and a rate published after midnight
     * would otherwise leave yesterday a gap for good.
     */
    public static List<LocalDate> settledGaps(RateFetch fetch, Instant now) {
        LocalDate firstRecent = LocalDate.ofInstant(now, LIMA).minusDays(1);
        Set<LocalDate> published = fetch.publications().stream().map(ExchangeRate::fecha).collect(Collectors.toSet());
        List<LocalDate> gaps = new ArrayList<>();
        for (LocalDate d = fetch.from(); !d.isAfter(fetch.to()) && d.isBefore(firstRecent); d = d.plusDays(1)) {
            if (!published.contains(d)) {
                gaps.add(d);
            }
        }
        return gaps;
    }

    /**
     * Stores a fetch: its publications and its {@link #settledGaps settled gaps}, checked at {@code now}.
     *
     * @return how many publications were inserted or changed
     */
    public static int store(Handle handle, RateFetch fetch, Instant now) {
        return save(handle, fetch.publications(), fetch.series(), settledGaps(fetch, now), now);
    }

    /**
     * Stores publications and gap days of one series. A publication already stored with the same values is left
     * alone, so its {@code capturadoEn} keeps saying when Quipu first had that datum; a changed value (the source
     * revises) replaces it with the new capture time. A day once seen without a value that now has one stops being a
     * gap.
     *
     * @return how many publications were inserted or changed
     * @throws IllegalArgumentException for a publication of another series
     */
    public static int save(Handle handle, Collection<ExchangeRate> publications, RateSeries series,
                           Collection<LocalDate> gaps, Instant checkedAt) {
        for (ExchangeRate p : publications) {
            if (!p.fuente().equals(series.fuente().code()) || p.moneda() != series.moneda()) {
                throw new IllegalArgumentException("a " + p.fuente() + "." + p.moneda() + " publication saved as "
                        + series);
            }
        }
        RateRows rows = handle.attach(RateRows.class);
        int written = 0;
        if (!publications.isEmpty()) {
            for (int count : rows.upsert(publications)) {
                // An unchanged publication matches the conflict but not the where: 0 rows.
                written += Math.max(count, 0);
            }
            rows.ungap(publications);
        }
        if (!gaps.isEmpty()) {
            rows.gap(series.fuente().code(), series.moneda().name(), gaps, checkedAt);
        }
        return written;
    }

    interface RateRows {
        @SqlBatch("""
                insert into exchange_rates (fuente, moneda, fecha, compra, venta, capturado_en)
                values (:fuente, :moneda, :fecha, :compra, :venta, :capturadoEn)
                on conflict (fuente, moneda, fecha) do update
                   set compra = excluded.compra, venta = excluded.venta, capturado_en = excluded.capturado_en
                 where exchange_rates.compra <> excluded.compra
                    or exchange_rates.venta <> excluded.venta""")
        int[] upsert(@BindMethods Collection<ExchangeRate> publications);

        @SqlBatch("delete from exchange_rate_gaps where fuente = :fuente and moneda = :moneda and fecha = :fecha")
        void ungap(@BindMethods Collection<ExchangeRate> publications);

        @SqlBatch("""
                insert into exchange_rate_gaps (fuente, moneda, fecha, checked_at)
                values (:fuente, :moneda, :fecha, :checkedAt)
                on conflict (fuente, moneda, fecha) do update set checked_at = excluded.checked_at""")
        void gap(@Bind("fuente") String fuente, @Bind("moneda") String moneda, @Bind("fecha") Collection<LocalDate> fechas,
                 @Bind("checkedAt") Instant checkedAt);
    }
}
