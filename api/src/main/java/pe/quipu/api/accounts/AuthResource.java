package pe.quipu.api.accounts;

import com.codahale.metrics.annotation.Timed;
import io.dropwizard.auth.Auth;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import pe.quipu.api.auth.RequiresSession;
import pe.quipu.api.auth.SessionPrincipal;
import pe.quipu.api.domain.EmailIdentity;
import pe.quipu.api.http.JsonBody;
import pe.quipu.api.http.Origins;
import pe.quipu.api.http.TextInput;

import java.io.InputStream;
import java.util.Set;
import java.util.regex.Pattern;

/** {@code /v1/auth/*}: signup, login, refresh, logout (contract §2). Answers are never cached. */
@Timed
@Path("/v1/auth")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public final class AuthResource {

    static final int MIN_PASSWORD = 10;
    /** Argon2 hashes whatever it is given; an upper bound keeps a login from being an expensive request. */
    static final int MAX_PASSWORD = 1024;
    private static final Pattern EMAIL = Pattern.compile("[^@\\s]+@[^@\\s.]+(\\.[^@\\s.]+)+");

    private final AccountService accounts;
    private final JsonBody bodies;

    public AuthResource(AccountService accounts, JsonBody bodies) {
        this.accounts = accounts;
        this.bodies = bodies;
    }

    @POST
    @Path("/signup")
    public Response signup(@HeaderParam(HttpHeaders.CONTENT_TYPE) String contentType, InputStream body,
                           @Context HttpServletRequest request) {
        JsonBody.Fields fields = bodies.read(contentType, body, Set.of("email", "password", "nombre"));
        String email = email(fields, true);
        String password = fields.text("password", true);
        if (password != null && password.length() < MIN_PASSWORD) {
            fields.reject("password", "must be at least " + MIN_PASSWORD + " characters");
        } else if (password != null && password.length() > MAX_PASSWORD) {
            fields.reject("password", "must be at most " + MAX_PASSWORD + " characters");
        }
        String nombre = nombre(fields, true);
        fields.validate();
        Account account = accounts.signup(email, password, nombre, Origins.of(request));
        return Response.status(Response.Status.CREATED).entity(account)
                .header(HttpHeaders.CACHE_CONTROL, "no-store").build();
    }

    @POST
    @Path("/login")
    public Response login(@HeaderParam(HttpHeaders.CONTENT_TYPE) String contentType, InputStream body,
                          @Context HttpServletRequest request) {
        JsonBody.Fields fields = bodies.read(contentType, body, Set.of("email", "password"));
        String email = fields.text("email", true);
        String password = fields.text("password", true);
        if (password != null && password.length() > MAX_PASSWORD) {
            fields.reject("password", "must be at most " + MAX_PASSWORD + " characters");
        }
        fields.validate();
        TokenPair tokens = accounts.login(email.strip(), password, Origins.of(request));
        return Response.ok(tokens).header(HttpHeaders.CACHE_CONTROL, "no-store").build();
    }

    /** Spends a refresh token for the next pair; a spent one presented again revokes its session. */
    @POST
    @Path("/refresh")
    public Response refresh(@HeaderParam(HttpHeaders.CONTENT_TYPE) String contentType, InputStream body,
                            @Context HttpServletRequest request) {
        JsonBody.Fields fields = bodies.read(contentType, body, Set.of("refreshToken"));
        String refreshToken = fields.text("refreshToken", true);
        fields.validate();
        TokenPair tokens = accounts.refresh(refreshToken, Origins.of(request));
        return Response.ok(tokens).header(HttpHeaders.CACHE_CONTROL, "no-store").build();
    }

    /** Ends the session of the access token sent; takes no body. */
    @POST
    @Path("/logout")
    @Consumes(MediaType.WILDCARD)
    @RequiresSession
    public Response logout(@Auth SessionPrincipal caller, @Context HttpServletRequest request) {
        accounts.logout(caller, Origins.of(request));
        return Response.noContent().header(HttpHeaders.CACHE_CONTROL, "no-store").build();
    }

    /** A required or optional email member, stripped; a malformed one is recorded as a fault. */
    static String email(JsonBody.Fields fields, boolean required) {
        String email = fields.text("email", required);
        if (email == null) {
            return null;
        }
        email = email.strip();
        if (email.length() > 254 || !EMAIL.matcher(email).matches()) {
            fields.reject("email", "must be an email address");
        } else {
            String fault = EmailIdentity.fault(email);
            if (fault != null) {
                fields.reject("email", fault);
            }
        }
        return email;
    }

    /** A required or optional nombre member, stripped and NFC-normalised, 1 to 200 characters. */
    static String nombre(JsonBody.Fields fields, boolean required) {
        String nombre = fields.text("nombre", required);
        if (nombre == null) {
            return null;
        }
        nombre = TextInput.name(nombre);
        if (nombre.isEmpty() || nombre.length() > 200) {
            fields.reject("nombre", "must be 1 to 200 characters");
        }
        return nombre;
    }
}
