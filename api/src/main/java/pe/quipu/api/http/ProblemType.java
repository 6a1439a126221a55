package pe.quipu.api.http;

/** The {@code type} strings of Quipu's Problem Details (interface spec, Errors; contract §7). */
public enum ProblemType {
    VALIDATION_ERROR(400, "validation_error", "The request is not valid"),
    UNAUTHORIZED(401, "unauthorized", "Missing or invalid credentials"),
    FORBIDDEN_SCOPE(403, "forbidden_scope", "The API key lacks the scope this operation needs"),
    FORBIDDEN_PLAN(403, "forbidden_plan", "The request exceeds what the plan allows"),
    NOT_FOUND(404, "not_found", "Not found"),
    METHOD_NOT_ALLOWED(405, "method_not_allowed", "Method not allowed"),
    NOT_ACCEPTABLE(406, "not_acceptable", "No acceptable representation"),
    CONFLICT(409, "conflict", "Conflict"),
    GONE(410, "gone", "Gone"),
    PAYLOAD_TOO_LARGE(413, "payload_too_large", "Request body too large"),
    UNSUPPORTED_MEDIA_TYPE(415, "unsupported_media_type", "Unsupported media type"),
    IDEMPOTENCY_KEY_REUSED(422, "idempotency_key_reused", "Idempotency-Key used for another request"),
    RATE_LIMITED(429, "rate_limited", "Too many requests"),
    QUOTA_EXCEEDED(429, "quota_exceeded", "Monthly quota exceeded"),
    INTERNAL_ERROR(500, "internal_error", "Internal error"),
    UPSTREAM_UNAVAILABLE(502, "upstream_unavailable", "Upstream source unavailable"),
    SERVICE_UNAVAILABLE(503, "service_unavailable", "Service unavailable");

    private final int status;
    private final String wireName;
    private final String title;

    ProblemType(int status, String wireName, String title) {
        this.status = status;
        this.wireName = wireName;
        this.title = title;
    }

    public int status() {
        return status;
    }

    public String wireName() {
        return wireName;
    }

    public String title() {
        return title;
    }

    /** The type Quipu answers for an HTTP status produced by the container rather than by Quipu's code. */
    public static ProblemType forStatus(int status) {
        return switch (status) {
            case 400 -> VALIDATION_ERROR;
            case 401 -> UNAUTHORIZED;
            case 403 -> FORBIDDEN_SCOPE;
            case 404 -> NOT_FOUND;
            case 405 -> METHOD_NOT_ALLOWED;
            case 406 -> NOT_ACCEPTABLE;
            case 409 -> CONFLICT;
            case 410 -> GONE;
            case 413 -> PAYLOAD_TOO_LARGE;
            case 415 -> UNSUPPORTED_MEDIA_TYPE;
            case 429 -> RATE_LIMITED;
            case 502 -> UPSTREAM_UNAVAILABLE;
            case 503 -> SERVICE_UNAVAILABLE;
            default -> status >= 500 ? INTERNAL_ERROR : VALIDATION_ERROR;
        };
    }
}
