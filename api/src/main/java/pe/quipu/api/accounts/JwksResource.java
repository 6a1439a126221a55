package pe.quipu.api.accounts;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/** {@code GET /.well-known/jwks.json}: the public key that verifies Quipu's access tokens. */
@Path("/.well-known/jwks.json")
public final class JwksResource {

    private final AccessTokens accessTokens;

    public JwksResource(AccessTokens accessTokens) {
        this.accessTokens = accessTokens;
    }

    @GET
    @Produces({"application/jwk-set+json", MediaType.APPLICATION_JSON})
    public Response jwks() {
        // Verifiers may cache it briefly; a key change is a deliberate operator act.
        return Response.ok(accessTokens.jwks()).header(HttpHeaders.CACHE_CONTROL, "public, max-age=300").build();
    }
}
