package pe.quipu.api.http;

import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import jakarta.ws.rs.core.HttpHeaders;
import pe.quipu.api.domain.DomainException.InvalidInput;
import pe.quipu.api.domain.Text;

import java.util.List;
import java.util.Locale;

/**
 * Credentials travel in the {@code Authorization} header only. A request that puts one in its query string
 * ({@code ?access_token=…}, the OAuth 2.0 fallback RFC 6750 §2.3 discourages) is refused with 400 on every route,
 * known or not and authenticated or not, before anything else looks at it: a key in a URL ends up in logs and
 * histories, and answering it normally would teach clients that it works.
 *
 * <p>A request with more than one {@code Authorization} header is refused the same way: which one would count is a
 * guess (the first, for Dropwizard), and a proxy or a cache may well have looked at the other.
 */
@PreMatching
@Priority(Priorities.AUTHENTICATION - 100)
public final class CredentialPlacement implements ContainerRequestFilter {

    static final String ACCESS_TOKEN = "access_token";

    @Override
    public void filter(ContainerRequestContext request) {
        List<String> authorization = request.getHeaders().get(HttpHeaders.AUTHORIZATION);
        if (authorization != null && authorization.size() > 1) {
            throw new InvalidInput(HttpHeaders.AUTHORIZATION,
                    Text.of("http.credentials.repeated", authorization.size()));
        }
        if (carriesAccessToken(request.getUriInfo().getRequestUri().getRawQuery())) {
            throw new InvalidInput(ACCESS_TOKEN,
                    Text.of("http.credentials.in_query"));
        }
    }

    /** Whether any parameter is named access_token (in any case, percent-encoded or not). */
    static boolean carriesAccessToken(String rawQuery) {
        if (rawQuery == null || rawQuery.isEmpty()) {
            return false;
        }
        for (String pair : rawQuery.split("&", -1)) {
            int equals = pair.indexOf('=');
            String name = equals < 0 ? pair : pair.substring(0, equals);
            if (ACCESS_TOKEN.equals(QueryRedaction.lenientDecode(name).toLowerCase(Locale.ROOT))) {
                return true;
            }
        }
        return false;
    }
}
