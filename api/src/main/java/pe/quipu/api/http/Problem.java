package pe.quipu.api.http;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import pe.quipu.api.domain.FieldError;
import pe.quipu.api.domain.Language;
import pe.quipu.api.domain.Text;

import java.time.Instant;
import java.util.List;

/**
 * An RFC 9457 (formerly 7807) Problem Details body: {@code type}, {@code title}, {@code status}, {@code detail},
 * for validation failures {@code errors: [{field, message}]}, and for a deleted account ({@code gone}) the
 * {@code deletedAt} the spec asks for; and the {@code requestId} of the request it answers (contract §13), taken
 * when the body is written on the thread serving that request. {@code title}, {@code detail} and the errors'
 * messages are in the request's language ({@link RequestLanguage}); {@code type} is the same in every language.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"type", "title", "status", "detail", "errors", "deletedAt", "requestId"})
public record Problem(String type, String title, int status, String detail, List<Fault> errors,
                      Instant deletedAt) {

    public static final String MEDIA_TYPE = "application/problem+json";

    /** One entry of {@code errors}, in words. */
    public record Fault(String field, String message) {
    }

    /** A Problem in the language of the request being served. */
    public static Problem of(ProblemType type, Text detail, List<FieldError> errors, Instant deletedAt) {
        Language language = RequestLanguage.current();
        return new Problem(type.wireName(), type.title().in(language), type.status(), detail.in(language),
                errors == null ? null
                        : errors.stream().map(e -> new Fault(e.field(), e.message().in(language))).toList(),
                deletedAt);
    }

    /** The id of the request being answered ({@link RequestIds}), or null outside a request. */
    @JsonProperty("requestId")
    public String requestId() {
        return RequestIds.current();
    }

    public static Problem of(ProblemType type, Text detail) {
        return of(type, detail, null, null);
    }
}
