package pe.quipu.api.plans;

import com.fasterxml.jackson.annotation.JsonProperty;
import jakarta.validation.constraints.Min;

/** One row of the {@code plans:} table of config.yml (contract §2). */
public final class PlanSettings {
    @Min(0)
    @JsonProperty
    private long monthlyQuota;
    @Min(0)
    @JsonProperty
    private int rateLimitRpm;
    @Min(1)
    @JsonProperty
    private int batchCap = 1;
    @Min(0)
    @JsonProperty
    private int webhookEndpoints;
    /** Lists per account (contract §11). */
    @Min(0)
    @JsonProperty
    private int watchlists;
    /** Distinct RUCs over all of an account's lists (contract §11). */
    @Min(0)
    @JsonProperty
    private int watchlistRucs;

    public long getMonthlyQuota() {
        return monthlyQuota;
    }

    public int getRateLimitRpm() {
        return rateLimitRpm;
    }

    public int getBatchCap() {
        return batchCap;
    }

    public int getWebhookEndpoints() {
        return webhookEndpoints;
    }

    public int getWatchlists() {
        return watchlists;
    }

    public int getWatchlistRucs() {
        return watchlistRucs;
    }
}
