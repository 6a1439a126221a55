package pe.quipu.api.domain;

/**
 * What an account has left of its plan's limits: requests this clock minute (and the seconds until the next one)
 * and quota units this Lima calendar month (and the seconds until the next one starts). Every metered answer says so.
 */
public record Allowance(int rateLimit, long rateRemaining, long rateResetSeconds, long quotaLimit,
                        long quotaRemaining, long quotaResetSeconds) {
}
