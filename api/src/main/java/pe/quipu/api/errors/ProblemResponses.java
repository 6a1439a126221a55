package pe.quipu.api.errors;

import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;

import java.util.Map;

/** Builds the one error answer shape: status, {@code application/problem+json}, never cached. */
public final class ProblemResponses {

    private ProblemResponses() {
    }

    public static Response of(Problem problem, Map<String, String> headers) {
        Response.ResponseBuilder builder = Response.status(problem.status())
                .type(Problem.MEDIA_TYPE)
                .header(HttpHeaders.CACHE_CONTROL, "no-store")
                .entity(problem);
        headers.forEach(builder::header);
        return builder.build();
    }

    public static Response of(ApiProblem problem) {
        return of(problem.problem(), problem.headers());
    }
}
