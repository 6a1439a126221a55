package pe.quipu.api.http;

import pe.quipu.api.domain.Allowance;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What an account has left, as every metered answer says it (contract §2): the rate and quota headers, twice.
 *
 * <ul>
 *   <li>{@code RateLimit-Limit}, {@code -Remaining}, {@code -Reset} (the minute) and {@code X-Quota-Limit},
 *   {@code -Remaining} (the month), as the contract names them and existing clients read them;</li>
 *   <li>{@code RateLimit-Policy} and {@code RateLimit} of draft-ietf-httpapi-ratelimit-headers (revision 10 on), lists
 *   of structured-field items naming both policies: {@code "minute";q=60;w=60, "month";q=1000} and
 *   {@code "minute";r=59;t=41, "month";r=999;t=1296000}. The month has no {@code w}: a Lima calendar month is not a
 *   fixed number of seconds, and {@code t} says when it ends. The unit is the draft's default, requests: the minute
 *   counts requests, and the month counts quota units, one per request but for a batch, which spends one per RUC
 *   (openapi.yaml says so).</li>
 * </ul>
 */
public final class AllowanceHeaders {

    /** The policies' names in {@code RateLimit-Policy} and {@code RateLimit}. */
    static final String MINUTE = "\"minute\"";
    static final String MONTH = "\"month\"";

    private AllowanceHeaders() {
    }

    public static Map<String, String> of(Allowance allowance) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("RateLimit-Limit", Integer.toString(allowance.rateLimit()));
        headers.put("RateLimit-Remaining", Long.toString(allowance.rateRemaining()));
        headers.put("RateLimit-Reset", Long.toString(allowance.rateResetSeconds()));
        headers.put("X-Quota-Limit", Long.toString(allowance.quotaLimit()));
        headers.put("X-Quota-Remaining", Long.toString(allowance.quotaRemaining()));
        headers.put("RateLimit-Policy", MINUTE + ";q=" + allowance.rateLimit() + ";w=60, " + MONTH + ";q="
                + allowance.quotaLimit());
        headers.put("RateLimit", MINUTE + ";r=" + allowance.rateRemaining() + ";t=" + allowance.rateResetSeconds()
                + ", " + MONTH + ";r=" + allowance.quotaRemaining() + ";t=" + allowance.quotaResetSeconds());
        return headers;
    }
}
