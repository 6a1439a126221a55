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
import pe.quipu.api.http.AllowanceHeaders;
import pe.quipu.api.plans.AccountLimits;
import pe.quipu.api.plans.AccountLimitsCache;

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

    private final UsageMeter meter;
    private final AccountLimitsCache limits;

    public MeteringFeature(UsageMeter meter, AccountLimitsCache limits) {
        this.meter = meter;
        this.limits = limits;
    }

    /** The ticket of a metered request; none when metering is off. */
    public static Optional<Ticket> ticket(ContainerRequestContext request) {
        return request.getProperty(TICKET) instanceof Ticket ticket ? Optional.of(ticket) : Optional.empty();
    }

    @Override
    public void configure(ResourceInfo resourceInfo, FeatureContext context) {
        if (resourceInfo.getResourceMethod().isAnnotationPresent(CostsUnits.class)
                || resourceInfo.getResourceClass().isAnnotationPresent(CostsUnits.class)) {
            context.register(new MeteringFilter(meter, limits), PRIORITY);
        }
    }

    private record MeteringFilter(UsageMeter meter, AccountLimitsCache limits)
            implements ContainerRequestFilter, ContainerResponseFilter {

        @Override
        public void filter(ContainerRequestContext request) {
            if (!(request.getSecurityContext().getUserPrincipal() instanceof ApiKeyPrincipal key) || key.warmUp()) {
                return; // refused before (no key, or not a key), or the start-up warm-up's, which counts nothing
            }
            AccountLimits account = limits.get(key.accountId())
                    .orElseThrow(() -> new Unauthenticated("This key's account no longer exists"));
            request.setProperty(TICKET, meter.admit(account));
        }

        @Override
        public void filter(ContainerRequestContext request, ContainerResponseContext response) {
            ticket(request).ifPresent(ticket -> AllowanceHeaders.of(ticket.settle(response.getStatus()))
                    .forEach(response.getHeaders()::putSingle));
        }
    }
}
