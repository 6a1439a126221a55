package pe.quipu.api.http;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import pe.quipu.api.domain.FieldError;

import java.time.Instant;
import java.util.List;

/**
 * An RFC 9457 (formerly 7807) Problem Details body: {@code type}, {@code title}, {@code status}, {@code detail},
 * for validation failures {@code errors: [{field, message}]}, and for a deleted account ({@code gone}) the
 * {@code deletedAt} the spec asks for; and the {@code requestId} of the request it answers (contract §13), taken
 * when the body is written on the thread serving that request.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"type", "title", "status", "detail", "errors", "deletedAt", "requestId"})
public record Problem(String type, String title, int status, String detail, List<FieldError> errors,
                      Instant deletedAt) {

    public static final String MEDIA_TYPE = "application/problem+json";

    public Problem(String type, String title, int status, String detail, List<FieldError> errors) {
        this(type, title, status, detail, errors, null);
    }

    /** The id of the request being answered ({@link RequestIds}), or null outside a request. */
    @JsonProperty("requestId")
    public String requestId() {
        return RequestIds.current();
    }

    public static Problem of(ProblemType type, String detail) {
        return new Problem(type.wireName(), type.title(), type.status(), detail, null);
    }
}
