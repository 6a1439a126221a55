package pe.quipu.api.domain;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.function.UnaryOperator;

/**
 * Quipu's calendar: quota months, paid periods and usage days are Lima's ({@code America/Lima}), whatever the
 * server's time zone. The functions compute; a {@link Periods} remembers the current month and day for a caller that
 * asks on every request.
 */
public final class LimaCalendar {

    public static final ZoneId ZONE = ZoneId.of("America/Lima");

    private LimaCalendar() {
    }

    /** The Lima date {@code instant} falls on. */
    public static LocalDate date(Instant instant) {
        return LocalDate.ofInstant(instant, ZONE);
    }

    /** The first instant of a Lima day. */
    public static Instant startOf(LocalDate day) {
        return day.atStartOfDay(ZONE).toInstant();
    }

    /** The first instant of the Lima calendar month {@code now} falls in. */
    public static Instant monthStart(Instant now) {
        return startOf(date(now).withDayOfMonth(1));
    }

    /** The first instant of the Lima calendar month after the one {@code now} falls in. */
    public static Instant nextMonthStart(Instant now) {
        return startOf(date(now).withDayOfMonth(1).plusMonths(1));
    }

    /** The first instant of the Lima day {@code now} falls in. */
    public static Instant dayStart(Instant now) {
        return startOf(date(now));
    }

    /**
     * The current Lima month and day, remembered: the period last computed answers until it ends, so that a caller
     * asking on every request (the meter) computes a date once a day. Each caller holds its own.
     */
    public static final class Periods {

        /** A Lima period, {@code [start, end)}. */
        private record Period(Instant start, Instant end) {
        }

        private final Remembered months = new Remembered(date -> date.withDayOfMonth(1), date -> date.plusMonths(1));
        private final Remembered days = new Remembered(date -> date, date -> date.plusDays(1));

        /** As {@link LimaCalendar#monthStart}. */
        public Instant monthStart(Instant now) {
            return months.periodOf(now).start();
        }

        /** As {@link LimaCalendar#nextMonthStart}. */
        public Instant nextMonthStart(Instant now) {
            return months.periodOf(now).end();
        }

        /** As {@link LimaCalendar#dayStart}. */
        public Instant dayStart(Instant now) {
            return days.periodOf(now).start();
        }

        private static final class Remembered {
            private final UnaryOperator<LocalDate> first;
            private final UnaryOperator<LocalDate> next;
            private volatile Period last = new Period(Instant.EPOCH, Instant.EPOCH);

            Remembered(UnaryOperator<LocalDate> first, UnaryOperator<LocalDate> next) {
                this.first = first;
                this.next = next;
            }

            Period periodOf(Instant now) {
                Period known = last;
                if (!now.isBefore(known.start()) && now.isBefore(known.end())) {
                    return known;
                }
                LocalDate start = first.apply(date(now));
                Period period = new Period(startOf(start), startOf(next.apply(start)));
                last = period;
                return period;
            }
        }
    }
}
