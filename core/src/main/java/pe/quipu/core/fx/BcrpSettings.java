package pe.quipu.core.fx;

import java.time.Duration;
import java.util.Objects;

/**
 * How Quipu talks to BCRP.
 *
 * @param baseUrl        e.g. {@code https://estadisticas.bcrp.gob.pe/estadisticas/series/api}
 * @param attemptTimeout limit of each HTTP attempt, connection to last byte
 * @param maxAttempts    attempts in all (first one included)
 * @param retryWait      pause between attempts
 */
public record BcrpSettings(String baseUrl, Duration attemptTimeout, int maxAttempts, Duration retryWait) {

    public static final String DEFAULT_BASE_URL = "https://estadisticas.bcrp.gob.pe/estadisticas/series/api";

    public BcrpSettings {
        Objects.requireNonNull(baseUrl, "baseUrl");
        Objects.requireNonNull(attemptTimeout, "attemptTimeout");
        Objects.requireNonNull(retryWait, "retryWait");
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be at least 1");
        }
        if (attemptTimeout.isNegative() || attemptTimeout.isZero()) {
            throw new IllegalArgumentException("attemptTimeout must be positive");
        }
        // A trailing slash would double the separator in every URL.
        baseUrl = baseUrl.strip().replaceAll("/+$", "");
    }

    /** The longest a fetch can take: every attempt timing out, with the waits between them. */
    public Duration worstCase() {
        return attemptTimeout.multipliedBy(maxAttempts).plus(retryWait.multipliedBy(maxAttempts - 1L));
    }
}
