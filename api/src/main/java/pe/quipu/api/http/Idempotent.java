package pe.quipu.api.http;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A POST that creates or sends something, which an {@code Idempotency-Key} makes safe to retry: the same key and
 * request within 24 hours replays the first answer and does nothing again ({@link IdempotencyFeature}).
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Idempotent {
}
