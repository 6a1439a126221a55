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
import pe.quipu.api.domain.DomainException.InvalidInput;
import pe.quipu.api.domain.DomainException.Unauthenticated;
import pe.quipu.core.accounts.EmailIdentity;
import pe.quipu.api.http.JsonBody;
import pe.quipu.api.http.Origins;
import pe.quipu.api.http.TextInput;
import pe.quipu.api.domain.Text;

import java.io.InputStream;
import java.time.Duration;
import java.util.Enumeration;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * {@code /v1/auth/*}: signup, login, refresh, logout (contract §2). Answers are never cached.
 *
 * <p>For a browser page that keeps its access token in memory only, login and refresh also put the refresh token in
 * the cookie {@value #REFRESH_COOKIE} ({@code HttpOnly; Secure; SameSite=Strict; Path=/v1/auth}, for as long as the
 * token lives), refresh takes it from there when the body brings none, with the header {@code X-Quipu-CSRF: 1},
 * which no cross-site form can send; logout clears it (docs/decisions.md, Refresh-token cookie).
 */
@Timed
@Path("/v1/auth")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public final class AuthResource {

    static final int MIN_PASSWORD = 10;
    /** Argon2 hashes whatever it is given; an upper bound keeps a login from being an expensive request. */
    static final int MAX_PASSWORD = 1024;
    private static final Pattern EMAIL = Pattern.compile("[^@\\s]+@[^@\\s.]+(\\.[^@\\s.]+)+");

    /** The cookie that carries the refresh token for a browser page. */
    public static final String REFRESH_COOKIE = "quipu_refresh";
    /** The header a refresh by cookie must carry, with the value {@code 1}: a cross-site form cannot send it. */
    public static final String CSRF_HEADER = "X-Quipu-CSRF";
    /** The routes the cookie is sent to: these, and nothing else of Quipu. */
    static final String COOKIE_PATH = "/v1/auth";
    private static final String COOKIE_ATTRIBUTES = "; Path=" + COOKIE_PATH + "; Secure; HttpOnly; SameSite=Strict";

    private final AccountService accounts;
    private final JsonBody bodies;
    private final Duration refreshLifetime;

    /** @param refreshLifetime how long a refresh token lives: the cookie's {@code Max-Age} */
    public AuthResource(AccountService accounts, JsonBody bodies, Duration refreshLifetime) {
        this.accounts = accounts;
        this.bodies = bodies;
        this.refreshLifetime = refreshLifetime;
    }

    @POST
    @Path("/signup")
    public Response signup(@HeaderParam(HttpHeaders.CONTENT_TYPE) String contentType, InputStream body,
                           @Context HttpServletRequest request) {
        JsonBody.Fields fields = bodies.read(contentType, body, Set.of("email", "password", "nombre"));
        String email = email(fields, true);
        String password = fields.text("password", true);
        if (password != null && password.length() < MIN_PASSWORD) {
            fields.reject("password", Text.of("accounts.password.too_short", MIN_PASSWORD));
        } else if (password != null && password.length() > MAX_PASSWORD) {
            fields.reject("password", Text.of("accounts.password.too_long", MAX_PASSWORD));
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
            fields.reject("password", Text.of("accounts.password.too_long", MAX_PASSWORD));
        }
        fields.validate();
        TokenPair tokens = accounts.login(email.strip(), password, Origins.of(request));
        return tokens(tokens);
    }

    /**
     * Spends a refresh token for the next pair; a spent one presented again revokes its session. The token comes
     * from the body's {@code refreshToken}, as it always did; when the body brings none (no body, or no such member)
     * and the request carries the cookie or the CSRF header, from the cookie, which then needs the header.
     */
    @POST
    @Path("/refresh")
    public Response refresh(@HeaderParam(HttpHeaders.CONTENT_TYPE) String contentType,
                            @HeaderParam(CSRF_HEADER) String csrf, InputStream body,
                            @Context HttpServletRequest request) {
        String cookie = refreshCookie(request);
        if (cookie == null && csrf == null) {
            JsonBody.Fields fields = bodies.read(contentType, body, Set.of("refreshToken"));
            String refreshToken = fields.text("refreshToken", true);
            fields.validate();
            return tokens(accounts.refresh(refreshToken));
        }
        Optional<JsonBody.Fields> fields = bodies.readIfAny(contentType, body, Set.of("refreshToken"));
        String fromBody = null;
        if (fields.isPresent()) {
            fromBody = fields.get().text("refreshToken", false);
            fields.get().validate();
        }
        return tokens(accounts.refresh(fromBody != null ? fromBody : fromCookie(cookie, csrf)));
    }

    /** Ends the session of the access token sent, and clears the refresh-token cookie; takes no body. */
    @POST
    @Path("/logout")
    @Consumes(MediaType.WILDCARD)
    @RequiresSession
    public Response logout(@Auth SessionPrincipal caller, @Context HttpServletRequest request) {
        accounts.logout(caller, Origins.of(request));
        return Response.noContent().header(HttpHeaders.CACHE_CONTROL, "no-store")
                .header(HttpHeaders.SET_COOKIE, REFRESH_COOKIE + "=; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT"
                        + COOKIE_ATTRIBUTES)
                .build();
    }

    /** The answer of login and refresh: the pair, and the refresh token in its cookie for a browser page. */
    private Response tokens(TokenPair tokens) {
        return Response.ok(tokens).header(HttpHeaders.CACHE_CONTROL, "no-store")
                .header(HttpHeaders.SET_COOKIE, REFRESH_COOKIE + "=" + tokens.refreshToken() + "; Max-Age="
                        + refreshLifetime.toSeconds() + COOKIE_ATTRIBUTES)
                .build();
    }

    /**
     * The cookie's refresh token, only with the CSRF header: SameSite=Strict already keeps other sites' requests
     * from carrying the cookie, and the header is what a cross-site form cannot add (nor a cross-origin script,
     * without a CORS preflight that Quipu never grants).
     */
    private static String fromCookie(String cookie, String csrf) {
        if (!"1".equals(csrf)) {
            throw new InvalidInput(CSRF_HEADER, csrf == null ? Text.of("accounts.refresh.csrf_missing", REFRESH_COOKIE)
                    : Text.of("accounts.refresh.csrf_not_one", REFRESH_COOKIE));
        }
        if (cookie == null) {
            throw new Unauthenticated(Text.of("accounts.refresh.no_token", REFRESH_COOKIE));
        }
        return cookie;
    }

    /**
     * The value of the first {@value #REFRESH_COOKIE} cookie, read from the {@code Cookie} headers as they came (a
     * malformed header of other cookies is no reason to refuse); null when there is none or it is empty.
     */
    private static String refreshCookie(HttpServletRequest request) {
        Enumeration<String> headers = request.getHeaders(HttpHeaders.COOKIE);
        while (headers != null && headers.hasMoreElements()) {
            for (String pair : headers.nextElement().split(";")) {
                int equals = pair.indexOf('=');
                if (equals > 0 && pair.substring(0, equals).strip().equals(REFRESH_COOKIE)) {
                    String value = pair.substring(equals + 1).strip();
                    if (value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")) {
                        value = value.substring(1, value.length() - 1);
                    }
                    return value.isEmpty() ? null : value;
                }
            }
        }
        return null;
    }

    /** A required or optional email member, stripped; a malformed one is recorded as a fault. */
    static String email(JsonBody.Fields fields, boolean required) {
        String email = fields.text("email", required);
        if (email == null) {
            return null;
        }
        email = email.strip();
        if (email.length() > 254 || !EMAIL.matcher(email).matches()) {
            fields.reject("email", Text.of("accounts.email.malformed"));
        } else {
            EmailIdentity.Fault fault = EmailIdentity.fault(email);
            if (fault != null) {
                fields.reject("email", Text.of(switch (fault) {
                    case DOMAIN_NOT_IDN -> "accounts.email.domain_not_idn";
                    case MIXED_SCRIPTS -> "accounts.email.mixed_scripts";
                }));
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
            fields.reject("nombre", Text.of("accounts.nombre.length", 200));
        }
        return nombre;
    }
}
