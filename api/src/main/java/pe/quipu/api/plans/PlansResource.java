package pe.quipu.api.plans;

import com.codahale.metrics.annotation.Timed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import java.util.List;
import java.util.Map;

/**
 * {@code GET /v1/plans}: the plan table of config.yml (contract §2), in its order, so that a prospective customer and
 * the dashboard's Plans page can compare them. Public, no credential, not metered. An account's own plan, and any
 * numbers the operator set for it alone, come from {@code GET /v1/usage}.
 */
@Timed
@Path("/v1/plans")
@Produces(MediaType.APPLICATION_JSON)
public final class PlansResource {

    private final Map<String, List<Plan>> answer;

    public PlansResource(PlanTable plans) {
        this.answer = Map.of("items", plans.listed());
    }

    /** Revalidated on every use: the table changes with config.yml, on a restart. */
    @GET
    public Response plans() {
        return Response.ok(answer).header(HttpHeaders.CACHE_CONTROL, "no-cache").build();
    }
}
