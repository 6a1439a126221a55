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
import pe.quipu.api.domain.Text;

/**
 * Applies {@link RequiresScope}: a valid key without the scope gets 403 {@code forbidden_scope}. Where a session is
 * accepted too ({@code orSession}), {@link SessionFeature} checks the session (its account not deleted).
 */
@Provider
public final class ScopeFeature implements DynamicFeature {

    @Override
    public void configure(ResourceInfo resourceInfo, FeatureContext context) {
        RequiresScope required = resourceInfo.getResourceMethod().getAnnotation(RequiresScope.class);
        if (required == null) {
            required = resourceInfo.getResourceClass().getAnnotation(RequiresScope.class);
        }
        if (required != null) {
            context.register(new ScopeFilter(required.value(), required.orSession()));
        }
    }

    @Priority(Priorities.AUTHORIZATION)
    private static final class ScopeFilter implements ContainerRequestFilter {
        private final Scope scope;
        private final boolean orSession;

        private ScopeFilter(Scope scope, boolean orSession) {
            this.scope = scope;
            this.orSession = orSession;
        }

        @Override
        public void filter(ContainerRequestContext request) {
            Object principal = request.getSecurityContext().getUserPrincipal();
            if (orSession && principal instanceof SessionPrincipal) {
                return;
            }
            if (!(principal instanceof ApiKeyPrincipal key)) {
                throw new Unauthenticated(orSession
                        ? Text.of("auth.send_key_with_scope_or_token", scope.wireName())
                        : Text.of("auth.send_key"));
            }
            if (!key.scopes().contains(scope)) {
                throw new ScopeRequired(Text.of("auth.scope_required", scope.wireName()));
            }
        }
    }
}
