package pe.quipu.api.metering;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A data endpoint whose requests count toward the account's per-minute rate and monthly quota (one unit each;
 * {@code POST /v1/ruc/batch} reserves its N units through {@link Ticket#reserve}). Applied by
 * {@link MeteringFeature} after the key and its scope were checked.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
public @interface CostsUnits {

    /**
     * The quota units one request holds: 1 for a data endpoint, 0 for one that counts toward the per-minute rate only
     * (the watchlists' management, contract §11), which an account over its monthly quota may still call.
     */
    int value() default 1;
}
