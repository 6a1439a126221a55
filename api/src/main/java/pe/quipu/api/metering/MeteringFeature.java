package pe.quipu.api.metering;

import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.container.DynamicFeature;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.FeatureContext;
import jakarta.ws.rs.ext.Provider;
import pe.quipu.api.auth.ApiKeyPrincipal;
import pe.quipu.api.domain.DomainException.Unauthenticated;
import pe.quipu.api.domain.Text;
import pe.quipu.api.http.AllowanceHeaders;
import pe.quipu.api.plans.AccountLimits;
import pe.quipu.api.plans.AccountLimitsCache;

import java.time.Clock;
import java.util.Map;
import java.util.Optional;

/**
 * Applies {@link CostsUnits}: after the key (401) and its scope (403), the per-minute rate and then the monthly quota
 * (429), before the resource; on the way out, settles the request's quota units by its status and adds the rate
 * and quota headers. Registered only when metering is enabled.
 */
@Provider
public final class MeteringFeature implements DynamicFeature {

    /** Right after the scope check ({@code Priorities.AUTHORIZATION}). */
    static final int PRIORITY = Priorities.AUTHORIZATION + 100;
    private static final String TICKET = Ticket.class.getName();

    /**
     * The start-up warm-up's key is metered like any other, on limits that never bind, by a meter of its own that
     * no sync ever writes to the database: its requests run the very code a client's run, and count nowhere.
     */
    private static final AccountLimits WARM_UP = new AccountLimits(ApiKeyPrincipal.WARM_UP_ACCOUNT, "warm-up",
            "warm-up", Long.MAX_VALUE / 2, Integer.MAX_VALUE, Integer.MAX_VALUE, 0, 0, 0, 100, null);

    private final UsageMeter meter;
    private final UsageMeter warmUpMeter;
    private final AccountLimitsCache limits;

    public MeteringFeature(UsageMeter meter, AccountLimitsCache limits, Clock clock) {
        this.meter = meter;
        this.warmUpMeter = new UsageMeter(clock, null);
        this.limits = limits;
    }

    /** The ticket of a metered request; none when metering is off. */
    public static Optional<Ticket> ticket(ContainerRequestContext request) {
        return request.getProperty(TICKET) instanceof Ticket ticket ? Optional.of(ticket) : Optional.empty();
    }

    @Override
    public void configure(ResourceInfo resourceInfo, FeatureContext context) {
        CostsUnits costs = resourceInfo.getResourceMethod().getAnnotation(CostsUnits.class);
        if (costs == null) {
            costs = resourceInfo.getResourceClass().getAnnotation(CostsUnits.class);
        }
        if (costs != null) {
            context.register(new MeteringFilter(this, costs.value()), PRIORITY);
        }
    }

    /**
     * Admits one request of {@code key}'s account costing {@code units}: the warm-up's key on its own meter, any other
     * on its account's limits. The one admission of a metered request, for this feature's filter and the RUC lookups
     * served below Jersey.
     *
     * @throws Unauthenticated when the key's account is gone; RateLimited or QuotaExceeded when over a limit
     */
    public Ticket admit(ApiKeyPrincipal key, int units) {
        if (key.warmUp()) {
            return warmUpMeter.admit(WARM_UP, units);
        }
        AccountLimits account = limits.get(key.accountId())
                .orElseThrow(() -> new Unauthenticated(Text.of("domain.account.key_gone")));
        return meter.admit(account, units);
    }

    /** Settles {@code ticket} by its answer's status, once, and returns the headers that say what is left. */
    public static Map<String, String> settle(Ticket ticket, int status) {
        return AllowanceHeaders.of(ticket.settle(status));
    }

    private record MeteringFilter(MeteringFeature feature, int units)
            implements ContainerRequestFilter, ContainerResponseFilter {

        @Override
        public void filter(ContainerRequestContext request) {
            if (!(request.getSecurityContext().getUserPrincipal() instanceof ApiKeyPrincipal key)) {
                return; // refused before: no key, or not a key
            }
            request.setProperty(TICKET, feature.admit(key, units));
        }

        @Override
        public void filter(ContainerRequestContext request, ContainerResponseContext response) {
            ticket(request).ifPresent(ticket -> settle(ticket, response.getStatus())
                    .forEach(response.getHeaders()::putSingle));
        }
    }
}
