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
import pe.quipu.api.errors.ApiProblem;
import pe.quipu.api.errors.ProblemType;
import pe.quipu.api.plans.AccountLimits;
import pe.quipu.api.plans.AccountLimitsCache;

/**
 * Applies {@link Metered}: after the key (401) and its scope (403), the per-minute rate and then the monthly quota
 * (429), before the resource; on the way out, settles the request's quota units by its status and adds the rate
 * and quota headers. Registered only when metering is enabled.
 */
@Provider
public final class MeteringFeature implements DynamicFeature {

    /** Right after the scope check ({@code Priorities.AUTHORIZATION}). */
    static final int PRIORITY = Priorities.AUTHORIZATION + 100;

    private final UsageMeter meter;
    private final AccountLimitsCache limits;

    public MeteringFeature(UsageMeter meter, AccountLimitsCache limits) {
        this.meter = meter;
        this.limits = limits;
    }

    @Override
    public void configure(ResourceInfo resourceInfo, FeatureContext context) {
        if (resourceInfo.getResourceMethod().isAnnotationPresent(Metered.class)
                || resourceInfo.getResourceClass().isAnnotationPresent(Metered.class)) {
            context.register(new MeteringFilter(meter, limits), PRIORITY);
        }
    }

    private record MeteringFilter(UsageMeter meter, AccountLimitsCache limits)
            implements ContainerRequestFilter, ContainerResponseFilter {

        @Override
        public void filter(ContainerRequestContext request) {
            if (!(request.getSecurityContext().getUserPrincipal() instanceof ApiKeyPrincipal key)) {
                return; // refused before: no key, or not a key
            }
            AccountLimits account = limits.get(key.accountId()).orElseThrow(() -> ApiProblem.of(
                    ProblemType.UNAUTHORIZED, "This key's account no longer exists"));
            request.setProperty(Ticket.PROPERTY, meter.admit(account));
        }

        @Override
        public void filter(ContainerRequestContext request, ContainerResponseContext response) {
            Ticket.of(request).ifPresent(ticket ->
                    ticket.settle(response.getStatus()).forEach(response.getHeaders()::putSingle));
        }
    }
}
