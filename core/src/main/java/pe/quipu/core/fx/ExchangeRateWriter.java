package pe.quipu.core.fx;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Writes what BCRP answered into {@code exchange_rates} and {@code exchange_rate_gaps}, on the caller's
 * connection and transaction. The one implementation of the storage rules, shared by the API (on-demand
 * fetches, the in-process capture) and the ETL's {@code tipo-cambio} job.
 */
public final class ExchangeRateWriter {

    /** BCRP publishes for Lima's business days. */
    public static final ZoneId LIMA = ZoneId.of("America/Lima");

    private ExchangeRateWriter() {
    }

    /**
     * The days of the fetched range to record as gaps (BCRP was asked and had nothing): every day without a
     * publication, whether BCRP listed it as {@code n.d.} or not at all (weekends, usually), but only settled
     * days, before yesterday in Lima: BCRP may still publish today's rate, and a rate published after midnight
     * would otherwise leave yesterday a gap for good.
     */
    public static List<LocalDate> settledGaps(BcrpFetch fetch, Instant now) {
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
    public static int store(Connection c, BcrpFetch fetch, Instant now) throws SQLException {
        return save(c, fetch.publications(), fetch.moneda(), settledGaps(fetch, now), now);
    }

    /**
     * Stores publications and gap days. A publication already stored with the same values is left alone, so
     * its {@code capturadoEn} keeps saying when Quipu first had that datum; a changed value (BCRP revises)
     * replaces it with the new capture time. A day once seen without a value that now has one stops being a gap.
     *
     * @return how many publications were inserted or changed
     */
    public static int save(Connection c, Collection<ExchangeRate> publications, Moneda moneda,
                           Collection<LocalDate> gaps, Instant checkedAt) throws SQLException {
        int written = 0;
        if (!publications.isEmpty()) {
            try (PreparedStatement upsert = c.prepareStatement("""
                    insert into exchange_rates (moneda, fecha, compra, venta, fuente, capturado_en)
                    values (?, ?, ?, ?, ?, ?)
                    on conflict (moneda, fecha) do update
                       set compra = excluded.compra, venta = excluded.venta, fuente = excluded.fuente,
                           capturado_en = excluded.capturado_en
                     where exchange_rates.compra <> excluded.compra
                        or exchange_rates.venta <> excluded.venta
                        or exchange_rates.fuente <> excluded.fuente""")) {
                for (ExchangeRate p : publications) {
                    upsert.setString(1, p.moneda().name());
                    upsert.setObject(2, p.fecha());
                    upsert.setBigDecimal(3, p.compra());
                    upsert.setBigDecimal(4, p.venta());
                    upsert.setString(5, p.fuente());
                    upsert.setObject(6, utc(p.capturadoEn()));
                    upsert.addBatch();
                }
                for (int count : upsert.executeBatch()) {
                    // An unchanged publication matches the conflict but not the where: 0 rows.
                    written += Math.max(count, 0);
                }
            }
            try (PreparedStatement ungap = c.prepareStatement(
                    "delete from exchange_rate_gaps where moneda = ? and fecha = ?")) {
                for (ExchangeRate p : publications) {
                    ungap.setString(1, p.moneda().name());
                    ungap.setObject(2, p.fecha());
                    ungap.addBatch();
                }
                ungap.executeBatch();
            }
        }
        if (!gaps.isEmpty()) {
            try (PreparedStatement gap = c.prepareStatement("""
                    insert into exchange_rate_gaps (moneda, fecha, checked_at) values (?, ?, ?)
                    on conflict (moneda, fecha) do update set checked_at = excluded.checked_at""")) {
                for (LocalDate d : gaps) {
                    gap.setString(1, moneda.name());
                    gap.setObject(2, d);
                    gap.setObject(3, utc(checkedAt));
                    gap.addBatch();
                }
                gap.executeBatch();
            }
        }
        return written;
    }

    // An explicit offset: a java.sql.Timestamp would go through the JVM's default time zone.
    private static OffsetDateTime utc(Instant instant) {
        return instant.atOffset(ZoneOffset.UTC);
    }
}
