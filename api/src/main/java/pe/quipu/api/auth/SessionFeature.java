package pe.quipu.api.auth;

import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.DynamicFeature;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.FeatureContext;
import jakarta.ws.rs.ext.Provider;
import pe.quipu.api.domain.DomainException.Unauthenticated;

/** Applies {@link RequiresSession}: anything but a session's access JWT (or, where allowed, an API key) gets 401. */
@Provider
public final class SessionFeature implements DynamicFeature {

    @Override
    public void configure(ResourceInfo resourceInfo, FeatureContext context) {
        RequiresSession required = resourceInfo.getResourceMethod().getAnnotation(RequiresSession.class);
        if (required == null) {
            required = resourceInfo.getResourceClass().getAnnotation(RequiresSession.class);
        }
        if (required != null) {
            context.register(new SessionFilter(required.orApiKey()));
        }
    }

    @Priority(Priorities.AUTHORIZATION)
    private static final class SessionFilter implements ContainerRequestFilter {
        private final boolean orApiKey;

        private SessionFilter(boolean orApiKey) {
            this.orApiKey = orApiKey;
        }

        @Override
        public void filter(ContainerRequestContext request) {
            Object principal = request.getSecurityContext().getUserPrincipal();
            if (principal instanceof SessionPrincipal || orApiKey && principal instanceof ApiKeyPrincipal) {
                return;
            }
            throw new Unauthenticated(orApiKey
                    ? "Send an access token (from POST /v1/auth/login) or an API key as Authorization: Bearer <token>"
                    : "Send an access token from POST /v1/auth/login as Authorization: Bearer <token>; API keys are not accepted here");
        }
    }
}
