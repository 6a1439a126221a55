package pe.quipu.api.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.core.setup.AdminEnvironment;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import pe.quipu.api.domain.Text;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.EnumSet;

/**
 * Every operator task on the admin connector, Quipu's ({@code set-plan}, {@code grant-admin}, …) and Dropwizard's
 * ({@code log-level}, {@code gc}), needs {@code Authorization: Bearer <admin token>} (contract §13):
 * <ul>
 *   <li>a request that carries {@code Origin} or {@code Sec-Fetch-Site} comes from a browser, which any web page open
 *   in the operator's browser can make send a POST to {@code 127.0.0.1:8081} ({@code fetch(…, {mode: "no-cors"})}):
 *   403, whatever its credentials, before anything runs;</li>
 *   <li>no token, or another one: 401 with a {@code WWW-Authenticate} challenge.</li>
 * </ul>
 * The token is compared by its SHA-256 digest in constant time, and never written anywhere.
 */
public final class AdminTaskGuard extends HttpFilter {

    private final transient ObjectMapper json;
    private final byte[] tokenDigest;

    private AdminTaskGuard(ObjectMapper json, String token) {
        this.json = json;
        this.tokenDigest = sha256(token);
    }

    /** Guards {@code /tasks} and everything under it on the admin connector with this token. */
    public static void install(AdminEnvironment admin, ObjectMapper json, String token) {
        admin.addFilter("quipu-admin-task-guard", new AdminTaskGuard(json, token))
                .addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST), true, "/tasks", "/tasks/*");
    }

    @Override
    protected void doFilter(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        if (request.getHeader("Origin") != null || request.getHeader("Sec-Fetch-Site") != null) {
            refuse(response, new Problem("forbidden", Text.of("http.title.forbidden").in(RequestLanguage.current()), 403,
                    Text.of("http.tasks_not_from_browser").in(RequestLanguage.current()), null, null));
            return;
        }
        if (!authorized(request.getHeader("Authorization"))) {
            response.setHeader("WWW-Authenticate", "Bearer realm=\"quipu-admin\"");
            refuse(response, Problem.of(ProblemType.UNAUTHORIZED, Text.of("http.send_admin_token")));
            return;
        }
        chain.doFilter(request, response);
    }

    /** Whether the header is {@code Bearer <the token>}; the scheme in any case, as RFC 9110 allows. */
    boolean authorized(String header) {
        if (header == null || header.length() < 7 || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return false;
        }
        return MessageDigest.isEqual(tokenDigest, sha256(header.substring(7).strip()));
    }

    /** Without reading the body: the connection is closed after the answer, which says so to the client. */
    private void refuse(HttpServletResponse response, Problem problem) throws IOException {
        response.setStatus(problem.status());
        response.setHeader("Connection", "close");
        response.setContentType(Problem.MEDIA_TYPE);
        response.setHeader("Cache-Control", "no-store");
        response.setHeader("Content-Language", RequestLanguage.current().tag());
        json.writeValue(response.getOutputStream(), problem);
    }

    private static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
