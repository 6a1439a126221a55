package pe.quipu.api.ruc;

import com.codahale.metrics.annotation.Timed;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.dropwizard.auth.Auth;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import pe.quipu.api.auth.ApiKeyPrincipal;
import pe.quipu.api.auth.RequiresScope;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.domain.DomainException.InvalidInput;
import pe.quipu.api.http.PageLimit;
import pe.quipu.api.http.StrictQueryString;
import pe.quipu.api.metering.CostsUnits;
import pe.quipu.core.ruc.InvalidRucException;
import pe.quipu.core.ruc.Ruc;
import pe.quipu.api.domain.RucFaults;

import java.util.List;
import java.util.Map;

/**
 * {@code GET /v1/ruc/{ruc}/history} (contract §11): a RUC's changes, newest first, a page at a time. One quota unit
 * per page, metered like a lookup (a 404 spends it too). Query parameters are read strictly, as the search's are.
 */
@Timed
@Path("/v1/ruc/{ruc}/history")
@Produces(MediaType.APPLICATION_JSON)
@RequiresScope(Scope.RUC_READ)
@CostsUnits
public final class RucHistoryResource {

    static final List<String> PARAMETERS = List.of("limit", "cursor");
    static final int DEFAULT_LIMIT = 20;
    static final int MAX_LIMIT = 100;

    private final RucHistory history;

    public RucHistoryResource(RucHistory history) {
        this.history = history;
    }

    @GET
    public Response history(@Auth ApiKeyPrincipal caller, @PathParam("ruc") String text,
                            @Context HttpServletRequest request) {
        Ruc ruc;
        try {
            ruc = Ruc.parse(text);
        } catch (InvalidRucException e) {
            throw new InvalidInput("ruc", RucFaults.of(text, e));
        }
        Map<String, String> parameters = StrictQueryString.single(request, PARAMETERS);
        int limit = PageLimit.parse(parameters.get("limit"), DEFAULT_LIMIT, MAX_LIMIT);
        String cursor = parameters.get("cursor");
        RucHistory.Page page = history.page(ruc, limit, cursor == null ? null : HistoryCursor.decode(cursor, ruc));
        return Response.ok(new HistoryPage(ruc.value(), page.items(),
                        page.next() == null ? null : page.next().encode()))
                // Paged like the search: what a page holds moves with every load and with the retention's cut-off.
                .header(HttpHeaders.CACHE_CONTROL, "no-store")
                .build();
    }

    /** A page of a RUC's history: every member always present, {@code nextCursor} null on the last page. */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    @JsonPropertyOrder({"ruc", "items", "nextCursor"})
    public record HistoryPage(String ruc, List<RucChange> items, String nextCursor) {
    }
}
