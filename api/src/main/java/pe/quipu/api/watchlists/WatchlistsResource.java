package pe.quipu.api.watchlists;

import com.codahale.metrics.annotation.Timed;
import io.dropwizard.auth.Auth;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import pe.quipu.api.auth.QuipuPrincipal;
import pe.quipu.api.auth.RequiresScope;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.domain.DomainException.InvalidInput;
import pe.quipu.api.domain.RucFaults;
import pe.quipu.api.domain.Text;
import pe.quipu.api.http.Idempotent;
import pe.quipu.api.http.PageLimit;
import pe.quipu.api.http.RequestBody;
import pe.quipu.api.http.RequestLanguage;
import pe.quipu.api.http.StrictQueryString;
import pe.quipu.api.metering.CostsUnits;
import pe.quipu.core.ruc.InvalidRucException;
import pe.quipu.core.ruc.Ruc;

import java.io.InputStream;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;

/**
 * {@code /v1/watchlists} (contract §11), with an API key holding {@code watchlists:manage} or the account holder's
 * access token (the dashboard's). Every call counts toward the key's per-minute rate; only a page of changes costs a
 * quota unit. Answers are private and move with every write and load: none is cached.
 */
@Timed
@Path("/v1/watchlists")
@Produces(MediaType.APPLICATION_JSON)
@RequiresScope(value = Scope.WATCHLISTS_MANAGE, orSession = true)
@CostsUnits(0)
public final class WatchlistsResource {

    /** The most RUCs one {@code PUT} takes, and one {@code POST …/rucs}. */
    static final int MAX_PUT = 100_000;
    static final int MAX_POST = 1_000;
    /** Room for every element being a rejected line of a pasted file, not only an 11-digit RUC. */
    static final int MAX_PUT_BYTES = 8 * 1024 * 1024;
    static final int MAX_POST_BYTES = 256 * 1024;
    static final int DEFAULT_RUCS_LIMIT = 100;
    static final int MAX_RUCS_LIMIT = 1_000;
    static final int DEFAULT_CHANGES_LIMIT = 100;
    static final int MAX_CHANGES_LIMIT = 1_000;

    private final AccountWatchlists watchlists;
    private final WatchlistBody bodies;

    WatchlistsResource(AccountWatchlists watchlists, WatchlistBody bodies) {
        this.watchlists = watchlists;
        this.bodies = bodies;
    }

    @GET
    public Response all(@Auth QuipuPrincipal caller, @Context HttpServletRequest request) {
        StrictQueryString.single(request, List.of());
        return noStore(Response.ok(Map.of("items", watchlists.all(caller.accountId()))));
    }

    @PUT
    @Path("/{name}")
    @Consumes(MediaType.APPLICATION_JSON)
    public Response replace(@Auth QuipuPrincipal caller, @PathParam("name") String name, InputStream body) {
        WatchlistBody.Entries entries = bodies.read(RequestBody.readAtMost(body, MAX_PUT_BYTES,
                Text.of("watchlists.body.put_too_large", MAX_PUT_BYTES)), MAX_PUT, RequestLanguage.current());
        AccountWatchlists.Outcome outcome = watchlists.replace(caller.accountId(), name, entries);
        return noStore(Response.status(outcome.created() ? Response.Status.CREATED : Response.Status.OK)
                .entity(outcome.written()));
    }

    @GET
    @Path("/{name}")
    public Response get(@Auth QuipuPrincipal caller, @PathParam("name") String name,
                        @Context HttpServletRequest request) {
        StrictQueryString.single(request, List.of());
        return noStore(Response.ok(watchlists.get(caller.accountId(), name)));
    }

    @DELETE
    @Path("/{name}")
    public Response delete(@Auth QuipuPrincipal caller, @PathParam("name") String name) {
        watchlists.delete(caller.accountId(), name);
        return noStore(Response.noContent());
    }

    @POST
    @Idempotent
    @Path("/{name}/rucs")
    @Consumes(MediaType.APPLICATION_JSON)
    public Response add(@Auth QuipuPrincipal caller, @PathParam("name") String name, InputStream body) {
        WatchlistBody.Entries entries = bodies.read(RequestBody.readAtMost(body, MAX_POST_BYTES,
                Text.of("watchlists.body.post_too_large", MAX_POST_BYTES)), MAX_POST, RequestLanguage.current());
        return noStore(Response.ok(watchlists.add(caller.accountId(), name, entries)));
    }

    @GET
    @Path("/{name}/rucs")
    public Response rucs(@Auth QuipuPrincipal caller, @PathParam("name") String name,
                         @Context HttpServletRequest request) {
        Map<String, String> parameters = StrictQueryString.single(request, List.of("limit", "cursor"));
        int limit = PageLimit.parse(parameters.get("limit"), DEFAULT_RUCS_LIMIT, MAX_RUCS_LIMIT);
        return noStore(Response.ok(watchlists.rucs(caller.accountId(), name, limit, parameters.get("cursor"))));
    }

    @DELETE
    @Path("/{name}/rucs/{ruc}")
    public Response remove(@Auth QuipuPrincipal caller, @PathParam("name") String name,
                           @PathParam("ruc") String ruc) {
        watchlists.remove(caller.accountId(), name, ruc(ruc));
        return noStore(Response.noContent());
    }

    /** One quota unit per page, as a RUC's history. */
    @GET
    @Path("/{name}/changes")
    @CostsUnits
    public Response changes(@Auth QuipuPrincipal caller, @PathParam("name") String name,
                            @Context HttpServletRequest request) {
        Map<String, String> parameters = StrictQueryString.single(request, List.of("since", "limit", "cursor"));
        int limit = PageLimit.parse(parameters.get("limit"), DEFAULT_CHANGES_LIMIT, MAX_CHANGES_LIMIT);
        return noStore(Response.ok(watchlists.changes(caller.accountId(), name, since(parameters.get("since")),
                limit, parameters.get("cursor"))));
    }

    /** An ISO 8601 instant with its offset ({@code Z} or {@code ±hh:mm}), or null when absent. */
    private static Instant since(String text) {
        if (text == null) {
            return null;
        }
        try {
            return OffsetDateTime.parse(text).toInstant();
        } catch (DateTimeParseException e) {
            throw new InvalidInput("since", Text.of("watchlists.since.malformed"));
        }
    }

    private static Ruc ruc(String text) {
        try {
            return Ruc.parse(text);
        } catch (InvalidRucException e) {
            throw new InvalidInput("ruc", RucFaults.of(text, e));
        }
    }

    private static Response noStore(Response.ResponseBuilder response) {
        return response.header(HttpHeaders.CACHE_CONTROL, "no-store").build();
    }
}
