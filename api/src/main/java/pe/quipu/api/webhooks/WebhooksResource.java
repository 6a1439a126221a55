package pe.quipu.api.webhooks;

import com.codahale.metrics.annotation.Timed;
import io.dropwizard.auth.Auth;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.PATCH;
import jakarta.ws.rs.POST;
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
import pe.quipu.api.domain.DomainException.NotFound;
import pe.quipu.api.domain.Text;
import pe.quipu.api.throttle.KeyedThrottle;
import pe.quipu.api.http.Idempotent;
import pe.quipu.api.http.JsonBody;
import pe.quipu.api.http.PathIds;
import pe.quipu.api.http.Origins;

import java.io.InputStream;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * {@code /v1/webhooks} (the spec's "Webhooks", contract §6), with an API key holding {@code webhooks:manage} or the
 * account holder's access token (the dashboard manages webhooks with its session, without a key). Not
 * metered: managing endpoints spends no quota. Nothing is cached: answers are private, and two carry a secret.
 */
@Timed
@Path("/v1/webhooks")
@Produces(MediaType.APPLICATION_JSON)
@RequiresScope(value = Scope.WEBHOOKS_MANAGE, orSession = true)
public final class WebhooksResource {

    /** The spec's history size: the 100 most recent deliveries. */
    static final int HISTORY = 100;
    private static final Pattern DELIVERY_ID = Pattern.compile("dlv_[0-9A-Za-z]{24}");
    private static final Set<String> MEMBERS = Set.of("url", "events", "active");

    private final WebhookEndpoints endpoints;
    private final JsonBody bodies;
    /** Per account: create, update, delete, rotate, test and retry (each writes; test and retry also send). */
    private final KeyedThrottle operations;

    public WebhooksResource(WebhookEndpoints endpoints, JsonBody bodies, KeyedThrottle operations) {
        this.endpoints = endpoints;
        this.bodies = bodies;
        this.operations = operations;
    }

    @GET
    public Response list(@Auth QuipuPrincipal caller) {
        return noStore(Response.ok(Map.of("items", endpoints.list(caller.accountId()))));
    }

    @POST
    @Idempotent
    @Consumes(MediaType.APPLICATION_JSON)
    public Response create(@Auth QuipuPrincipal caller, @HeaderParam(HttpHeaders.CONTENT_TYPE) String contentType,
                           InputStream body, @Context HttpServletRequest request) {
        operations.take(caller.accountId().toString());
        WebhookEndpoints.Changes changes = changes(contentType, body, true);
        EndpointView created = endpoints.create(caller.accountId(), changes, Origins.of(request));
        return noStore(Response.status(Response.Status.CREATED)
                .header(HttpHeaders.LOCATION, "/v1/webhooks/" + created.id())
                .entity(created));
    }

    @GET
    @Path("/{id}")
    public Response get(@Auth QuipuPrincipal caller, @PathParam("id") String id) {
        return noStore(Response.ok(endpoints.get(caller.accountId(), endpointId(id))));
    }

    @PATCH
    @Path("/{id}")
    @Consumes(MediaType.APPLICATION_JSON)
    public Response update(@Auth QuipuPrincipal caller, @PathParam("id") String id,
                           @HeaderParam(HttpHeaders.CONTENT_TYPE) String contentType, InputStream body,
                           @Context HttpServletRequest request) {
        operations.take(caller.accountId().toString());
        UUID endpoint = endpointId(id);
        return noStore(Response.ok(endpoints.update(caller.accountId(), endpoint, changes(contentType, body, false),
                Origins.of(request))));
    }

    @DELETE
    @Path("/{id}")
    public Response delete(@Auth QuipuPrincipal caller, @PathParam("id") String id,
                           @Context HttpServletRequest request) {
        operations.take(caller.accountId().toString());
        endpoints.delete(caller.accountId(), endpointId(id), Origins.of(request));
        return noStore(Response.noContent());
    }

    @POST
    @Idempotent
    @Path("/{id}/rotate")
    public Response rotate(@Auth QuipuPrincipal caller, @PathParam("id") String id,
                           @Context HttpServletRequest request) {
        operations.take(caller.accountId().toString());
        return noStore(Response.ok(endpoints.rotate(caller.accountId(), endpointId(id), Origins.of(request))));
    }

    @POST
    @Idempotent
    @Path("/{id}/test")
    public Response test(@Auth QuipuPrincipal caller, @PathParam("id") String id) {
        operations.take(caller.accountId().toString());
        return noStore(Response.status(Response.Status.ACCEPTED)
                .entity(endpoints.test(caller.accountId(), endpointId(id))));
    }

    @GET
    @Path("/{id}/deliveries")
    public Response deliveries(@Auth QuipuPrincipal caller, @PathParam("id") String id) {
        return noStore(Response.ok(Map.of("items",
                endpoints.deliveries(caller.accountId(), endpointId(id), HISTORY))));
    }

    @GET
    @Path("/{id}/deliveries/{deliveryId}")
    public Response delivery(@Auth QuipuPrincipal caller, @PathParam("id") String id,
                             @PathParam("deliveryId") String deliveryId) {
        return noStore(Response.ok(endpoints.delivery(caller.accountId(), endpointId(id), deliveryId(deliveryId))));
    }

    @POST
    @Idempotent
    @Path("/{id}/deliveries/{deliveryId}/retry")
    public Response retry(@Auth QuipuPrincipal caller, @PathParam("id") String id,
                          @PathParam("deliveryId") String deliveryId, @Context HttpServletRequest request) {
        operations.take(caller.accountId().toString());
        return noStore(Response.status(Response.Status.ACCEPTED).entity(endpoints.retry(caller.accountId(),
                endpointId(id), deliveryId(deliveryId), Origins.of(request))));
    }

    /**
     * The body of a create (url and events required, active defaulting to true) or a PATCH (any of the three, at
     * least one). Repeated event names count once.
     */
    private WebhookEndpoints.Changes changes(String contentType, InputStream body, boolean creating) {
        JsonBody.Fields fields = bodies.read(contentType, body, MEMBERS);
        String url = fields.text("url", creating);
        List<String> names = fields.texts("events", creating);
        Boolean active = fields.bool("active", false);
        Set<String> events = null;
        if (names != null) {
            if (names.isEmpty()) {
                fields.reject("events", Text.of("webhooks.events.empty", String.join(", ", EventTypes.ALL)));
            } else {
                events = new LinkedHashSet<>(names);
            }
        }
        if (!creating && url == null && names == null && active == null && !fields.has("url")
                && !fields.has("events") && !fields.has("active")) {
            fields.reject("body", Text.of("webhooks.body.no_change"));
        }
        if (!creating) {
            for (String member : MEMBERS) {
                if (fields.isNull(member)) {
                    fields.reject(member, Text.of("webhooks.body.null_member"));
                }
            }
        }
        fields.validate();
        return new WebhookEndpoints.Changes(url, events, active);
    }

    /** Anything but a UUID is an endpoint this account does not have (404, as for another account's). */
    private static UUID endpointId(String id) {
        return PathIds.uuid(id, Text.of("webhooks.endpoint_not_found"));
    }

    private static String deliveryId(String id) {
        if (!DELIVERY_ID.matcher(id).matches()) {
            throw new NotFound(Text.of("webhooks.delivery_not_found"));
        }
        return id;
    }

    private static Response noStore(Response.ResponseBuilder response) {
        return response.header(HttpHeaders.CACHE_CONTROL, "no-store").build();
    }
}
