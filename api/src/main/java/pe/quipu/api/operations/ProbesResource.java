package pe.quipu.api.operations;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/**
 * {@code /livez} and {@code /readyz} (contract §13), for load balancers and orchestrators: public, never metered.
 * Liveness says only that the process serves; readiness is {@link Readiness}'s verdict.
 */
@Path("/")
@Produces(MediaType.TEXT_PLAIN)
public final class ProbesResource {

    private final Readiness readiness;

    public ProbesResource(Readiness readiness) {
        this.readiness = readiness;
    }

    @GET
    @Path("livez")
    public Response live() {
        return Response.ok("ok").header(HttpHeaders.CACHE_CONTROL, "no-store").build();
    }

    @GET
    @Path("readyz")
    public Response ready() {
        Readiness.Verdict verdict = readiness.verdict();
        return Response.status(verdict.ready() ? 200 : 503).entity(verdict.reason())
                .header(HttpHeaders.CACHE_CONTROL, "no-store").build();
    }
}
