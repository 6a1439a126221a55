package pe.quipu.api.http;

import pe.quipu.api.domain.Text;

import java.util.Map;

/**
 * A refusal that only the HTTP edge can make, about the request as HTTP rather than about what it asks: a body too
 * large, a media type Quipu does not read. Services speak {@link pe.quipu.api.domain.DomainException} instead.
 * Carries no stack trace.
 */
public final class ApiProblem extends RuntimeException {

    private final ProblemType type;
    private final Text detail;
    private final Map<String, String> headers;

    private ApiProblem(ProblemType type, Text detail, Map<String, String> headers) {
        super(type.wireName() + ": " + detail.english(), null, false, false);
        this.type = type;
        this.detail = detail;
        this.headers = Map.copyOf(headers);
    }

    public static ApiProblem of(ProblemType type, Text detail) {
        return new ApiProblem(type, detail, Map.of());
    }

    /** A refusal whose answer carries these headers too (a 415 for a content coding says which it reads). */
    public static ApiProblem of(ProblemType type, Text detail, Map<String, String> headers) {
        return new ApiProblem(type, detail, headers);
    }

    public Map<String, String> headers() {
        return headers;
    }

    public Problem problem() {
        return Problem.of(type, detail);
    }
}
