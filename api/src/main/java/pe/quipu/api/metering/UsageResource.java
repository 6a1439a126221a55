package pe.quipu.api.metering;

import com.codahale.metrics.annotation.Timed;
import io.dropwizard.auth.Auth;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import pe.quipu.api.auth.QuipuPrincipal;
import pe.quipu.api.auth.RequiresSession;
import pe.quipu.api.domain.DomainException.Unauthenticated;
import pe.quipu.api.plans.AccountLimits;
import pe.quipu.api.plans.AccountLimitsCache;
import pe.quipu.api.plans.Subscriptions;

import java.time.Clock;
import java.time.Instant;

/**
 * {@code GET /v1/usage} (contract §2): the account's plan, this Lima month's quota use and its per-minute limit.
 * A session's access token or any of the account's API keys; not metered, so it costs nothing.
 */
@Timed
@Path("/v1/usage")
@Produces(MediaType.APPLICATION_JSON)
public final class UsageResource {

    private final AccountLimitsCache limits;
    private final UsageMeter meter;
    private final Clock clock;

    public UsageResource(AccountLimitsCache limits, UsageMeter meter, Clock clock) {
        this.limits = limits;
        this.meter = meter;
        this.clock = clock;
    }

    @GET
    @RequiresSession(orApiKey = true)
    public Response usage(@Auth QuipuPrincipal caller) {
        AccountLimits account = limits.get(caller.accountId())
                .orElseThrow(() -> new Unauthenticated("This account no longer exists"));
        Usage usage = Usage.of(account, meter.monthUsed(account), clock.instant());
        return Response.ok(usage).header(HttpHeaders.CACHE_CONTROL, "no-store").build();
    }

    /** The quota month: {@code start} inclusive, {@code end} exclusive (the next month's start), Lima months. */
    public record Period(Instant start, Instant end) {
    }

    public record MonthlyQuota(long limit, long used, long remaining) {
    }

    public record Usage(String plan, Period period, MonthlyQuota monthlyQuota, int rateLimitRpm) {

        /** The account's usage at {@code now}, {@code used} units into this Lima month (the personal-data export's too). */
        public static Usage of(AccountLimits account, long used, Instant now) {
            long limit = account.monthlyQuota();
            return new Usage(account.plan(), new Period(Subscriptions.monthStart(now), Subscriptions.nextMonthStart(now)),
                    new MonthlyQuota(limit, used, Math.max(0, limit - used)), account.rateLimitRpm());
        }
    }
}
