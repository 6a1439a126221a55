package pe.quipu.api.accounts;

import com.codahale.metrics.annotation.Timed;
import io.dropwizard.auth.Auth;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.PATCH;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import pe.quipu.api.auth.RequiresSession;
import pe.quipu.api.auth.SessionPrincipal;
import pe.quipu.api.domain.DomainException.InvalidInput;
import pe.quipu.api.http.JsonBody;
import pe.quipu.api.http.Origins;
import pe.quipu.api.domain.Text;

import java.io.InputStream;
import java.util.List;
import java.util.Set;

/**
 * {@code /v1/me}: the account holder's own profile, with the access token of one of their sessions; API keys are
 * not accepted (interface spec, Authentication 4). Answers are personal data and never cached.
 */
@Timed
@Path("/v1/me")
@Produces(MediaType.APPLICATION_JSON)
@RequiresSession
public final class MeResource {

    private static final List<String> MEMBERS = List.of("nombre", "email", "usageAlertPercent");

    private final Profiles profiles;
    private final AccountDeletion deletion;
    private final JsonBody bodies;

    public MeResource(Profiles profiles, AccountDeletion deletion, JsonBody bodies) {
        this.profiles = profiles;
        this.deletion = deletion;
        this.bodies = bodies;
    }

    /**
     * Deletion: {@code {"confirmation": "BORRAR MI CUENTA"}}, the exact phrase. 204; this access token then gets 401,
     * the account's other unexpired ones 410 {@code gone}.
     */
    @DELETE
    @Consumes(MediaType.APPLICATION_JSON)
    public Response delete(@Auth SessionPrincipal caller, @HeaderParam(HttpHeaders.CONTENT_TYPE) String contentType,
                           InputStream body, @Context HttpServletRequest request) {
        JsonBody.Fields fields = bodies.read(contentType, body, Set.of("confirmation"));
        String confirmation = fields.text("confirmation", true);
        if (confirmation != null && !confirmation.equals(AccountDeletion.CONFIRMATION)) {
            fields.reject("confirmation", Text.of("accounts.delete.confirmation", AccountDeletion.CONFIRMATION));
        }
        fields.validate();
        deletion.delete(caller, Origins.of(request));
        return Response.noContent().header(HttpHeaders.CACHE_CONTROL, "no-store").build();
    }

    @GET
    public Response profile(@Auth SessionPrincipal caller) {
        Account account = profiles.find(caller.accountId()).orElseThrow(Profiles::accountGone);
        return Response.ok(account).header(HttpHeaders.CACHE_CONTROL, "no-store").build();
    }

    /** Rectification: any of {@code nombre}, {@code email}, {@code usageAlertPercent}; answers the new profile. */
    @PATCH
    @Consumes(MediaType.APPLICATION_JSON)
    public Response rectify(@Auth SessionPrincipal caller, @HeaderParam(HttpHeaders.CONTENT_TYPE) String contentType,
                            InputStream body, @Context HttpServletRequest request) {
        JsonBody.Fields fields = bodies.read(contentType, body, Set.copyOf(MEMBERS));
        for (String member : MEMBERS) {
            if (fields.isNull(member)) {
                fields.reject(member, Text.of("accounts.rectify.null_member"));
            }
        }
        String nombre = AuthResource.nombre(fields, false);
        String email = AuthResource.email(fields, false);
        Integer percent = fields.integer("usageAlertPercent", false);
        if (percent != null && (percent < 1 || percent > 100)) {
            fields.reject("usageAlertPercent", Text.of("accounts.rectify.alert_percent"));
        }
        fields.validate();
        if (MEMBERS.stream().noneMatch(fields::has)) {
            throw InvalidInput.of(Text.of("accounts.rectify.nothing", String.join(", ", MEMBERS)));
        }
        Account account = profiles.rectify(caller.accountId(), new Profiles.Rectification(nombre, email, percent),
                Origins.of(request));
        return Response.ok(account).header(HttpHeaders.CACHE_CONTROL, "no-store").build();
    }
}
