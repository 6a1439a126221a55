package pe.quipu.api.metering;

import pe.quipu.api.domain.LimaCalendar;
import pe.quipu.api.plans.AccountLimits;

import java.time.Instant;

/** An account's usage of its plan this month, as {@code GET /v1/usage} and the personal-data export show it. */
public record Usage(String plan, Period period, MonthlyQuota monthlyQuota, int rateLimitRpm) {

    /** The quota month: {@code start} inclusive, {@code end} exclusive (the next month's start), Lima months. */
    public record Period(Instant start, Instant end) {
    }

    public record MonthlyQuota(long limit, long used, long remaining) {
    }

    /** The account's usage at {@code now}, {@code used} units into this Lima month. */
    public static Usage of(AccountLimits account, long used, Instant now) {
        long limit = account.monthlyQuota();
        return new Usage(account.plan(), new Period(LimaCalendar.monthStart(now), LimaCalendar.nextMonthStart(now)),
                new MonthlyQuota(limit, used, Math.max(0, limit - used)), account.rateLimitRpm());
    }
}
