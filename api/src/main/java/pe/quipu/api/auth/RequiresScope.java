package pe.quipu.api.auth;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The scope a data endpoint needs; checked after the key is authenticated (403 forbidden_scope). With
 * {@code orSession}, the account holder's own session (its access JWT) is accepted too, with every right of the
 * account: {@code /v1/webhooks}, which the dashboard manages without asking for a key.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
public @interface RequiresScope {
    Scope value();

    boolean orSession() default false;
}
