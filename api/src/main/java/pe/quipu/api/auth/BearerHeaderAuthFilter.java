package pe.quipu.api.auth;

import io.dropwizard.auth.AuthFilter;
import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.SecurityContext;

import java.security.Principal;
import java.util.List;

/**
 * Bearer credentials from the {@code Authorization} header, and from nowhere else. Dropwizard's
 * {@code OAuthCredentialAuthFilter} falls back to an {@code access_token} query parameter, which puts keys into
 * URLs, request logs, proxies' logs and browser histories; this filter has no such fallback (and
 * {@code pe.quipu.api.http.CredentialPlacement} refuses such a parameter outright).
 */
@Priority(Priorities.AUTHENTICATION)
public final class BearerHeaderAuthFilter<P extends Principal> extends AuthFilter<String, P> {

    private BearerHeaderAuthFilter() {
    }

    @Override
    public void filter(ContainerRequestContext request) {
        if (!authenticate(request, credentials(request.getHeaders().get(HttpHeaders.AUTHORIZATION)),
                SecurityContext.BASIC_AUTH)) {
            throw unauthorizedHandler.buildException(prefix, realm);
        }
    }

    private String credentials(List<String> headers) {
        return credentials(prefix, headers);
    }

    /**
     * What follows {@code <prefix> } in the one Authorization header among {@code headers}; null when there is none,
     * more than one, or another scheme. The one reading of a bearer credential, for this filter and the RUC lookups
     * served below Jersey.
     */
    public static String credentials(String prefix, List<String> headers) {
        if (headers == null || headers.size() != 1) {
            return null;
        }
        String header = headers.getFirst();
        int space = header.indexOf(' ');
        if (space <= 0 || !prefix.equalsIgnoreCase(header.substring(0, space))) {
            return null;
        }
        String credentials = header.substring(space + 1);
        return credentials.isEmpty() ? null : credentials;
    }

    /** Builds the filter as Dropwizard's own builders do (authenticator, prefix, realm, unauthorized handler). */
    public static final class Builder<P extends Principal>
            extends AuthFilterBuilder<String, P, BearerHeaderAuthFilter<P>> {
        @Override
        protected BearerHeaderAuthFilter<P> newInstance() {
            return new BearerHeaderAuthFilter<>();
        }
    }
}
