package pe.quipu.api.metering;

import com.codahale.metrics.MetricRegistry;
import io.prometheus.metrics.core.metrics.Counter;
import io.dropwizard.core.setup.Environment;
import pe.quipu.api.plans.AccountLimitsCache;
import pe.quipu.api.platform.Platform;

import java.util.Optional;

/**
 * The metering feature assembled: per-minute rates and monthly quotas counted in memory, synced with the other
 * instances in batches in the background (docs/decisions.md, Metering), the filter that meters the data routes, and
 * {@code /v1/usage}. Switched off ({@code metering.enabled: false}), nothing is counted and no limit applies.
 */
public final class Metering {

    private final UsageMeter meter;
    private final MeteringFeature feature;

    public Metering(Platform platform, Environment environment, MeteringSettings settings, AccountLimitsCache limits) {
        MeteringStore store = new MeteringStore(platform.jdbi(), platform.outbox(), platform.clock());
        meter = new UsageMeter(platform.clock(), store);
        feature = settings.isEnabled() ? new MeteringFeature(meter, limits, platform.clock()) : null;
        if (feature != null) {
            Counter refusals = Counter.builder().name("quipu_quota_rejections_total")
                    .help("Metered requests refused, by problem type: rate_limited (per-minute) or quota_exceeded")
                    .labelNames("type").register(platform.prometheus());
            for (String type : new String[] {UsageMeter.RATE_LIMITED, UsageMeter.QUOTA_EXCEEDED}) {
                refusals.labelValues(type);
            }
            meter.onRefusal(type -> refusals.labelValues(type).inc());
            platform.manage(new MeterSync(meter, store, limits, platform.clock(),
                    settings.getSyncInterval().toJavaDuration()));
            environment.jersey().register(feature);
            environment.metrics().registerGauge(MetricRegistry.name(UsageMeter.class, "instances"), meter::instances);
            environment.metrics().registerGauge(MetricRegistry.name(UsageMeter.class, "accounts"),
                    meter::trackedAccounts);
        }
        environment.jersey().register(new UsageResource(limits, meter, store, platform.clock()));
    }

    /** How a metered request is admitted and settled; empty when metering is switched off. */
    public Optional<MeteringFeature> feature() {
        return Optional.ofNullable(feature);
    }

    /** This instance's counts, for what reports usage (the export). */
    public UsageMeter meter() {
        return meter;
    }
}
