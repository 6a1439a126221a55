package pe.quipu.api.auth;

import pe.quipu.api.domain.DomainException.Gone;

import java.time.Instant;
import java.util.Optional;
import java.util.UUID;

import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.DynamicFeature;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.FeatureContext;
import jakarta.ws.rs.ext.Provider;
import pe.quipu.api.domain.DomainException.Unauthenticated;
import pe.quipu.api.domain.Text;

/**
 * Applies {@link RequiresSession}: anything but a session's access JWT (or, where allowed, an API key) gets 401. Also
 * checks the sessions that a {@link RequiresScope#orSession()} operation admits: a deleted account's get 410.
 */
@Provider
public final class SessionFeature implements DynamicFeature {

    /** When an account was deleted (empty while it is live): its still-valid access tokens get 410 {@code gone}. */
    @FunctionalInterface
    public interface DeletedAccounts {
        Optional<Instant> deletedAt(UUID accountId);
    }

    private final DeletedAccounts deleted;

    public SessionFeature(DeletedAccounts deleted) {
        this.deleted = deleted;
    }

    @Override
    public void configure(ResourceInfo resourceInfo, FeatureContext context) {
        RequiresSession required = resourceInfo.getResourceMethod().getAnnotation(RequiresSession.class);
        if (required == null) {
            required = resourceInfo.getResourceClass().getAnnotation(RequiresSession.class);
        }
        if (required != null) {
            context.register(new SessionFilter(required.orApiKey(), deleted));
            return;
        }
        RequiresScope scope = resourceInfo.getResourceMethod().getAnnotation(RequiresScope.class);
        if (scope == null) {
            scope = resourceInfo.getResourceClass().getAnnotation(RequiresScope.class);
        }
        if (scope != null && scope.orSession()) {
            // Keys pass on to the scope's check; sessions are checked here.
            context.register(new SessionFilter(true, deleted));
        }
    }

    @Priority(Priorities.AUTHORIZATION)
    private static final class SessionFilter implements ContainerRequestFilter {
        private final boolean orApiKey;
        private final DeletedAccounts deleted;

        private SessionFilter(boolean orApiKey, DeletedAccounts deleted) {
            this.orApiKey = orApiKey;
            this.deleted = deleted;
        }

        @Override
        public void filter(ContainerRequestContext request) {
            Object principal = request.getSecurityContext().getUserPrincipal();
            if (principal instanceof SessionPrincipal session) {
                // A deleted account's access tokens stay valid until they expire; each of its calls says it is gone.
                Optional<Instant> deletedAt = deleted.deletedAt(session.accountId());
                if (deletedAt.isPresent()) {
                    throw new Gone(Text.of("domain.account.deleted", deletedAt.get()), deletedAt.get());
                }
                return;
            }
            if (orApiKey && principal instanceof ApiKeyPrincipal) {
                return;
            }
            throw new Unauthenticated(orApiKey ? Text.of("auth.send_token_or_key") : Text.of("auth.send_token"));
        }
    }
}
