package pe.quipu.api.http;

/**
 * A refusal that only the HTTP edge can make, about the request as HTTP rather than about what it asks: a body too
 * large, a media type Quipu does not read. Services speak {@link pe.quipu.api.domain.DomainException} instead.
 * Carries no stack trace.
 */
public final class ApiProblem extends RuntimeException {

    private final ProblemType type;
    private final String detail;

    private ApiProblem(ProblemType type, String detail) {
        super(type.wireName() + ": " + detail, null, false, false);
        this.type = type;
        this.detail = detail;
    }

    public static ApiProblem of(ProblemType type, String detail) {
        return new ApiProblem(type, detail);
    }

    public Problem problem() {
        return Problem.of(type, detail);
    }
}
