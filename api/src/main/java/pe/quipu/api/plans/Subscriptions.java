package pe.quipu.api.plans;

import org.jdbi.v3.core.Handle;

import java.security.SecureRandom;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.UUID;
import java.util.function.BiFunction;
import java.util.function.UnaryOperator;

/**
 * Subscriptions: every account has one current row (its plan and per-account overrides) and keeps the ended ones
 * as history. Paid periods are Lima calendar months, like quota months, so a subscription renews at the start of
 * the next month.
 */
public final class Subscriptions {

    public static final String FREE = "free";
    public static final ZoneId LIMA = ZoneId.of("America/Lima");
    private static final char[] BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".toCharArray();
    private static final SecureRandom RANDOM = new SecureRandom();

    private Subscriptions() {
    }

    /** Opens the free subscription of a new account, on the caller's transaction. Returns its id. */
    public static String openFree(Handle handle, UUID accountId, Instant now) {
        return handle.attach(SubscriptionRows.class).open(accountId, FREE, Subscription.Overrides.NONE, now).id();
    }

    /** The first instant of the Lima calendar month after the one {@code now} falls in. */
    public static Instant nextMonthStart(Instant now) {
        LocalDate firstOfMonth = LocalDate.ofInstant(now, LIMA).withDayOfMonth(1);
        return firstOfMonth.plusMonths(1).atStartOfDay(LIMA).toInstant();
    }

    /** The first instant of the Lima calendar month {@code now} falls in. */
    public static Instant monthStart(Instant now) {
        return MONTHS.startOf(now);
    }

    /** The first instant of the Lima day {@code now} falls in. */
    public static Instant dayStart(Instant now) {
        return DAYS.startOf(now);
    }

    private static final Remembered MONTHS = new Remembered(LocalDate::plusMonths, date -> date.withDayOfMonth(1));
    private static final Remembered DAYS = new Remembered(LocalDate::plusDays, date -> date);

    /**
     * Lima periods (months or days), asked for on every metered request: the period last computed answers until
     * it ends.
     */
    private static final class Remembered {

        /** A Lima period, {@code [start, end)}. */
        private record Period(Instant start, Instant end) {
        }

        private final BiFunction<LocalDate, Long, LocalDate> plus;
        private final UnaryOperator<LocalDate> first;
        private volatile Period last = new Period(Instant.EPOCH, Instant.EPOCH);

        Remembered(BiFunction<LocalDate, Long, LocalDate> plus, UnaryOperator<LocalDate> first) {
            this.plus = plus;
            this.first = first;
        }

        Instant startOf(Instant now) {
            Period known = last;
            if (!now.isBefore(known.start()) && now.isBefore(known.end())) {
                return known.start();
            }
            LocalDate start = first.apply(LocalDate.ofInstant(now, LIMA));
            Period period = new Period(start.atStartOfDay(LIMA).toInstant(),
                    plus.apply(start, 1L).atStartOfDay(LIMA).toInstant());
            last = period;
            return period.start();
        }
    }

    public static String newId() {
        char[] id = new char[24];
        for (int i = 0; i < id.length; i++) {
            id[i] = BASE62[RANDOM.nextInt(BASE62.length)];
        }
        return "sub_" + new String(id);
    }
}
