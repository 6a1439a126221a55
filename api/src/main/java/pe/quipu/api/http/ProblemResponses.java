package pe.quipu.api.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import pe.quipu.api.domain.DomainException;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The one error answer shape: status, {@code application/problem+json}, never cached; and the one place that
 * chooses the status and headers of each kind of refusal. {@code Content-Language} says which language the words
 * are in.
 */
public final class ProblemResponses {

    private ProblemResponses() {
    }

    public static Response of(Problem problem, Map<String, String> headers) {
        Response.ResponseBuilder builder = Response.status(problem.status())
                .type(Problem.MEDIA_TYPE)
                .header(HttpHeaders.CACHE_CONTROL, "no-store")
                .header(HttpHeaders.CONTENT_LANGUAGE, RequestLanguage.current().tag())
                .entity(problem);
        headers.forEach(builder::header);
        return builder.build();
    }

    public static Response of(ApiProblem problem) {
        return of(problem.problem(), problem.headers());
    }

    public static Response of(DomainException refusal) {
        return of(problem(refusal), headers(refusal));
    }

    /** The Problem Details of a refusal. */
    public static Problem problem(DomainException refusal) {
        ProblemType type = switch (refusal) {
            case DomainException.InvalidInput ignored -> ProblemType.VALIDATION_ERROR;
            case DomainException.Unauthenticated ignored -> ProblemType.UNAUTHORIZED;
            case DomainException.ScopeRequired ignored -> ProblemType.FORBIDDEN_SCOPE;
            case DomainException.PlanForbids ignored -> ProblemType.FORBIDDEN_PLAN;
            case DomainException.NotFound ignored -> ProblemType.NOT_FOUND;
            case DomainException.Conflict ignored -> ProblemType.CONFLICT;
            case DomainException.RateLimited ignored -> ProblemType.RATE_LIMITED;
            case DomainException.QuotaExceeded ignored -> ProblemType.QUOTA_EXCEEDED;
            case DomainException.UpstreamUnavailable ignored -> ProblemType.UPSTREAM_UNAVAILABLE;
            case DomainException.Gone ignored -> ProblemType.GONE;
        };
        return Problem.of(type, refusal.text(),
                refusal instanceof DomainException.InvalidInput invalid && !invalid.errors().isEmpty()
                        ? invalid.errors() : null,
                refusal instanceof DomainException.Gone gone ? gone.deletedAt() : null);
    }

    /**
     * Writes {@code problem} as {@link #of(Problem, Map)} answers it, to a servlet's {@code response}, serialised by
     * {@code json} (the application's, as Jersey's): for answers given below Jersey.
     */
    public static void write(HttpServletResponse response, Problem problem, Map<String, String> headers,
                             ObjectMapper json) throws IOException {
        byte[] body = json.writeValueAsBytes(problem);
        response.setStatus(problem.status());
        response.setContentType(Problem.MEDIA_TYPE);
        response.setHeader(HttpHeaders.CACHE_CONTROL, "no-store");
        response.setHeader(HttpHeaders.CONTENT_LANGUAGE, RequestLanguage.current().tag());
        headers.forEach(response::setHeader);
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
    }

    /** A refusal for a limit says how long to wait, in seconds, and a metered one what is left. */
    public static Map<String, String> headers(DomainException refusal) {
        Map<String, String> headers = new LinkedHashMap<>();
        if (refusal instanceof DomainException.LimitReached limit) {
            if (limit.allowance() != null) {
                headers.putAll(AllowanceHeaders.of(limit.allowance()));
            }
            headers.put("Retry-After", Long.toString(limit.retryAfterSeconds()));
        }
        return headers;
    }
}
