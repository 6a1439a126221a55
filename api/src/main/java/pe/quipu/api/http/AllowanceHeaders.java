package pe.quipu.api.http;

import pe.quipu.api.domain.Allowance;

import java.util.LinkedHashMap;
import java.util.Map;

/** What an account has left, as every metered answer says it (contract §2): the rate and quota headers. */
public final class AllowanceHeaders {

    private AllowanceHeaders() {
    }

    public static Map<String, String> of(Allowance allowance) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("RateLimit-Limit", Integer.toString(allowance.rateLimit()));
        headers.put("RateLimit-Remaining", Long.toString(allowance.rateRemaining()));
        headers.put("RateLimit-Reset", Long.toString(allowance.rateResetSeconds()));
        headers.put("X-Quota-Limit", Long.toString(allowance.quotaLimit()));
        headers.put("X-Quota-Remaining", Long.toString(allowance.quotaRemaining()));
        return headers;
    }
}
