package pe.quipu.api.keys;

import com.codahale.metrics.annotation.Timed;
import io.dropwizard.auth.Auth;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import pe.quipu.api.auth.RequiresSession;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.auth.SessionPrincipal;
import pe.quipu.api.throttle.KeyedThrottle;
import pe.quipu.api.http.Idempotent;
import pe.quipu.api.http.JsonBody;
import pe.quipu.api.http.PathIds;
import pe.quipu.api.http.TextInput;
import pe.quipu.api.http.Origins;
import pe.quipu.api.domain.Text;

import java.io.InputStream;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * {@code /v1/keys} (contract §2): the account holder manages its API keys with a session's access token; an API
 * key gets 401 here. Nothing is cached: the answers are private, and two of them carry a secret.
 */
@Timed
@Path("/v1/keys")
@Produces(MediaType.APPLICATION_JSON)
@RequiresSession
public final class KeysResource {

    static final int MAX_NAME = 100;
    private static final String KNOWN_SCOPES =
            Arrays.stream(Scope.values()).map(Scope::wireName).collect(Collectors.joining(", "));

    private final AccountKeys keys;
    private final JsonBody bodies;
    /** Creations, rotations and revocations per account: each writes, and each issues or ends a credential. */
    private final KeyedThrottle operations;

    public KeysResource(AccountKeys keys, JsonBody bodies, KeyedThrottle operations) {
        this.keys = keys;
        this.bodies = bodies;
        this.operations = operations;
    }

    @GET
    public Response list(@Auth SessionPrincipal session) {
        return noStore(Response.ok(Map.of("items", keys.list(session.accountId()))));
    }

    @POST
    @Idempotent
    @Consumes(MediaType.APPLICATION_JSON)
    public Response create(@Auth SessionPrincipal session, @HeaderParam(HttpHeaders.CONTENT_TYPE) String contentType,
                           InputStream body, @Context HttpServletRequest request) {
        operations.take(session.accountId().toString());
        JsonBody.Fields fields = bodies.read(contentType, body, Set.of("name", "scopes"));
        String name = fields.text("name", true);
        if (name != null) {
            name = TextInput.name(name);
            if (name.isEmpty() || name.codePointCount(0, name.length()) > MAX_NAME) {
                fields.reject("name", Text.of("keys.name.length", MAX_NAME));
            } else if (name.chars().anyMatch(Character::isISOControl)) {
                fields.reject("name", Text.of("keys.name.control_characters"));
            }
        }
        Set<Scope> scopes = scopes(fields);
        fields.validate();
        return noStore(Response.status(Response.Status.CREATED)
                .entity(keys.create(session.accountId(), name, scopes, Origins.of(request))));
    }

    @POST
    @Idempotent
    @Path("/{id}/rotate")
    public Response rotate(@Auth SessionPrincipal session, @PathParam("id") String id,
                           @Context HttpServletRequest request) {
        operations.take(session.accountId().toString());
        return noStore(Response.status(Response.Status.CREATED)
                .entity(keys.rotate(session.accountId(), keyId(id), Origins.of(request))));
    }

    @DELETE
    @Path("/{id}")
    public Response revoke(@Auth SessionPrincipal session, @PathParam("id") String id,
                           @Context HttpServletRequest request) {
        operations.take(session.accountId().toString());
        keys.revoke(session.accountId(), keyId(id), Origins.of(request));
        return noStore(Response.noContent());
    }

    /** A non-empty array of known scopes; repeats are allowed and count once. */
    private static Set<Scope> scopes(JsonBody.Fields fields) {
        List<String> names = fields.texts("scopes", true);
        if (names == null) {
            return null;
        }
        if (names.isEmpty()) {
            fields.reject("scopes", Text.of("keys.scopes.empty", KNOWN_SCOPES));
            return null;
        }
        Set<Scope> scopes = EnumSet.noneOf(Scope.class);
        for (int i = 0; i < names.size(); i++) {
            String name = names.get(i);
            String field = "scopes[" + i + "]";
            Scope.fromWireName(name).ifPresentOrElse(scopes::add, () -> fields.reject(field,
                    Text.of("keys.scopes.unknown", name, KNOWN_SCOPES)));
        }
        return scopes;
    }

    /** The path's id; anything but a UUID is a key this account does not have (404, as for another's key). */
    private static UUID keyId(String id) {
        return PathIds.uuid(id, AccountKeys.NOT_FOUND);
    }

    private static Response noStore(Response.ResponseBuilder response) {
        return response.header(HttpHeaders.CACHE_CONTROL, "no-store").build();
    }
}
