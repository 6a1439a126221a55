package pe.quipu.api.http;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/** Registered only in tests: an endpoint whose code fails unexpectedly, with internals in the message. */
@Path("/test-only/failure")
@Produces(MediaType.APPLICATION_JSON)
public final class FailingResource {

    public static final String SECRET_DETAIL = "SELECT password FROM internal_table";

    @GET
    public String fail() {
        throw new IllegalStateException(SECRET_DETAIL);
    }
}
