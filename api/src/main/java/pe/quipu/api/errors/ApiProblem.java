package pe.quipu.api.errors;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Thrown by resources and filters to answer with a Problem Details body. Carries no stack trace. */
public final class ApiProblem extends RuntimeException {

    private final ProblemType type;
    private final String detail;
    private final List<Problem.FieldError> errors;
    private final Map<String, String> headers;

    private ApiProblem(ProblemType type, String detail, List<Problem.FieldError> errors, Map<String, String> headers) {
        super(type.wireName() + ": " + detail, null, false, false);
        this.type = type;
        this.detail = detail;
        this.errors = errors;
        this.headers = headers;
    }

    public static ApiProblem of(ProblemType type, String detail) {
        return new ApiProblem(type, detail, null, Map.of());
    }

    /** A 400 validation_error naming the offending field. */
    public static ApiProblem invalid(String field, String message) {
        return new ApiProblem(ProblemType.VALIDATION_ERROR, field + ": " + message,
                List.of(new Problem.FieldError(field, message)), Map.of());
    }

    /**
     * A 400 validation_error listing several fields at once, so a caller fixes a whole request in one round
     * trip. The detail names the first and counts the rest; {@code errors} has them all.
     */
    public static ApiProblem invalid(List<Problem.FieldError> errors) {
        if (errors.isEmpty()) {
            throw new IllegalArgumentException("no field errors");
        }
        Problem.FieldError first = errors.getFirst();
        String more = errors.size() == 1 ? "" : " (and " + (errors.size() - 1) + " more, listed in errors)";
        return new ApiProblem(ProblemType.VALIDATION_ERROR, first.field() + ": " + first.message() + more,
                List.copyOf(errors), Map.of());
    }

    public ApiProblem withHeader(String name, String value) {
        Map<String, String> copy = new LinkedHashMap<>(headers);
        copy.put(name, value);
        return new ApiProblem(type, detail, errors, copy);
    }

    public ProblemType type() {
        return type;
    }

    public Problem problem() {
        return new Problem(type.wireName(), type.title(), type.status(), detail, errors);
    }

    public Map<String, String> headers() {
        return headers;
    }
}
