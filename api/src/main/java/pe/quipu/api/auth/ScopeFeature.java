package pe.quipu.api.auth;

import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.DynamicFeature;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.FeatureContext;
import jakarta.ws.rs.ext.Provider;
import pe.quipu.api.domain.DomainException.ScopeRequired;
import pe.quipu.api.domain.DomainException.Unauthenticated;

/** Applies {@link RequiresScope}: a valid key without the scope gets 403 {@code forbidden_scope}. */
@Provider
public final class ScopeFeature implements DynamicFeature {

    @Override
    public void configure(ResourceInfo resourceInfo, FeatureContext context) {
        RequiresScope required = resourceInfo.getResourceMethod().getAnnotation(RequiresScope.class);
        if (required == null) {
            required = resourceInfo.getResourceClass().getAnnotation(RequiresScope.class);
        }
        if (required != null) {
            context.register(new ScopeFilter(required.value()));
        }
    }

    @Priority(Priorities.AUTHORIZATION)
    private static final class ScopeFilter implements ContainerRequestFilter {
        private final Scope scope;

        private ScopeFilter(Scope scope) {
            this.scope = scope;
        }

        @Override
        public void filter(ContainerRequestContext request) {
            if (!(request.getSecurityContext().getUserPrincipal() instanceof ApiKeyPrincipal key)) {
                throw new Unauthenticated("Send a valid API key as Authorization: Bearer <key>");
            }
            if (!key.scopes().contains(scope)) {
                throw new ScopeRequired("This operation needs an API key with the scope " + scope.wireName());
            }
        }
    }
}
