package pe.quipu.api.plans;

import java.time.Instant;
import java.util.UUID;

/**
 * What an account may do now: its current subscription's plan with the account's overrides applied, and its
 * usage alert threshold.
 */
public record AccountLimits(UUID accountId, String subscriptionId, String plan, long monthlyQuota, int rateLimitRpm,
                            int batchCap, int webhookEndpoints, int watchlists, int watchlistRucs,
                            int usageAlertPercent, Instant renewsAt) {
}
