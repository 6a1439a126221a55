package pe.quipu.api.http;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import pe.quipu.api.domain.FieldError;

import java.util.List;

/**
 * An RFC 9457 (formerly 7807) Problem Details body: {@code type}, {@code title}, {@code status}, {@code detail},
 * and for validation failures {@code errors: [{field, message}]}.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"type", "title", "status", "detail", "errors"})
public record Problem(String type, String title, int status, String detail, List<FieldError> errors) {

    public static final String MEDIA_TYPE = "application/problem+json";

    public static Problem of(ProblemType type, String detail) {
        return new Problem(type.wireName(), type.title(), type.status(), detail, null);
    }
}
