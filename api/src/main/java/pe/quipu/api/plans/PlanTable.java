package pe.quipu.api.plans;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The plans of {@code config.yml}, by name. */
public final class PlanTable {

    private final Map<String, Plan> plans;
    /** As config.yml lists them. */
    private final List<Plan> listed;

    public PlanTable(Map<String, PlanSettings> config) {
        Map<String, Plan> byName = new LinkedHashMap<>();
        config.forEach((name, p) -> byName.put(name,
                new Plan(name, p.getMonthlyQuota(), p.getRateLimitRpm(), p.getBatchCap(), p.getWebhookEndpoints(),
                        p.getWatchlists(), p.getWatchlistRucs())));
        this.plans = Map.copyOf(byName);
        this.listed = List.copyOf(byName.values());
    }

    /** Every plan, in config.yml's order. */
    public List<Plan> listed() {
        return listed;
    }

    public Optional<Plan> find(String name) {
        return Optional.ofNullable(plans.get(name));
    }

    /** A plan that was removed from config.yml while accounts are still on it counts as free. */
    public Plan resolve(String name) {
        return plans.getOrDefault(name, plans.get("free"));
    }

    public Map<String, Plan> all() {
        return plans;
    }
}
