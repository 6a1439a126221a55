package pe.quipu.api.auth;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The operation is the account holder's own: it needs the access JWT of a session; an API key gets 401.
 * With {@code orApiKey}, any API key of the account is accepted too (e.g. {@code GET /v1/usage}).
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
public @interface RequiresSession {
    boolean orApiKey() default false;
}
