package pe.quipu.api.domain;

/** One fault of a request: the field (a member, a parameter, {@code rucs[3]}) and what is wrong with it. */
public record FieldError(String field, Text message) {
}
