package pe.quipu.api.http;

import pe.quipu.api.domain.Text;

/** The {@code type} strings of Quipu's Problem Details (interface spec, Errors; contract §7). */
public enum ProblemType {
    VALIDATION_ERROR(400, "validation_error"),
    UNAUTHORIZED(401, "unauthorized"),
    FORBIDDEN_SCOPE(403, "forbidden_scope"),
    FORBIDDEN_PLAN(403, "forbidden_plan"),
    NOT_FOUND(404, "not_found"),
    METHOD_NOT_ALLOWED(405, "method_not_allowed"),
    NOT_ACCEPTABLE(406, "not_acceptable"),
    CONFLICT(409, "conflict"),
    GONE(410, "gone"),
    PAYLOAD_TOO_LARGE(413, "payload_too_large"),
    UNSUPPORTED_MEDIA_TYPE(415, "unsupported_media_type"),
    IDEMPOTENCY_KEY_REUSED(422, "idempotency_key_reused"),
    RATE_LIMITED(429, "rate_limited"),
    QUOTA_EXCEEDED(429, "quota_exceeded"),
    INTERNAL_ERROR(500, "internal_error"),
    UPSTREAM_UNAVAILABLE(502, "upstream_unavailable"),
    SERVICE_UNAVAILABLE(503, "service_unavailable");

    private final int status;
    private final String wireName;

    ProblemType(int status, String wireName) {
        this.status = status;
        this.wireName = wireName;
    }

    public int status() {
        return status;
    }

    public String wireName() {
        return wireName;
    }

    /** The title, {@code http.title.<type>} in the http package's messages. */
    public Text title() {
        return Text.of("http.title." + wireName);
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
