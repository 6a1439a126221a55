package pe.quipu.api.plans;

/** A row of the plan table in {@code config.yml} (contract §2). */
public record Plan(String name, long monthlyQuota, int rateLimitRpm, int batchCap, int webhookEndpoints,
                   int watchlists, int watchlistRucs) {
}
