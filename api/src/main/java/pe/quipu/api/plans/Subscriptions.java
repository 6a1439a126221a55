package pe.quipu.api.plans;

import org.jdbi.v3.core.Handle;

import java.security.SecureRandom;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.UUID;

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
        // Asked on every metered request: the month last computed answers until it ends.
        Month known = lastMonth;
        if (known.contains(now)) {
            return known.start();
        }
        Instant start = LocalDate.ofInstant(now, LIMA).withDayOfMonth(1).atStartOfDay(LIMA).toInstant();
        lastMonth = new Month(start, nextMonthStart(now));
        return start;
    }

    /** A Lima calendar month, {@code [start, end)}. */
    private record Month(Instant start, Instant end) {
        boolean contains(Instant now) {
            return !now.isBefore(start) && now.isBefore(end);
        }
    }

    private static volatile Month lastMonth = new Month(Instant.EPOCH, Instant.EPOCH);

    public static String newId() {
        char[] id = new char[24];
        for (int i = 0; i < id.length; i++) {
            id[i] = BASE62[RANDOM.nextInt(BASE62.length)];
        }
        return "sub_" + new String(id);
    }
}
