package pe.quipu.api.ruc;

import com.codahale.metrics.MetricRegistry;
import jakarta.servlet.DispatcherType;
import io.dropwizard.core.setup.Environment;
import pe.quipu.api.auth.ApiKeyPrincipal;
import pe.quipu.api.metering.MeteringFeature;
import pe.quipu.api.platform.ExactCache;
import pe.quipu.api.platform.NotificationListener;
import pe.quipu.api.platform.Periodic;
import pe.quipu.api.http.ETags;
import pe.quipu.api.plans.AccountLimitsCache;
import pe.quipu.api.platform.Platform;
import pe.quipu.core.ruc.ChangesSettings;
import pe.quipu.core.ruc.RegistryChanges;
import pe.quipu.core.ruc.SearchSettings;
import pe.quipu.core.ruc.SunatLists;
import pe.quipu.core.ubigeo.Ubigeo;

import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * The RUC feature assembled: lookups (one or a batch, with SUNAT's lists and premises when asked), the search by
 * name, and a RUC's history from the change log, which is pruned to its retention daily. Recent answers, and the RUCs
 * recently found not to be in the registry, are kept in memory; a load that names its run drops those of the RUCs it
 * changed, any other change to the registry drops them all ({@link AnswerEviction}); answers that include lists or
 * premises are dropped on a change to those too. Histories are read from the log each time.
 */
public final class Rucs {

    private final RucRegistry registry;

    /**
     * @param changes  the change log's settings: its retention
     * @param ubigeos  the catalogue in service, by code: the names of a premises' district
     * @param apiKeys  the API key behind a bearer credential: with it, plain lookups are answered below Jersey
     *                 ({@link RucLookupFilter})
     * @param metering how a metered request is admitted and settled; empty when metering is switched off
     */
    public Rucs(Platform platform, Environment environment, RucSettings settings, SearchSettings search,
                ChangesSettings changes, AccountLimitsCache limits, Function<String, Optional<Ubigeo>> ubigeos,
                Function<String, Optional<ApiKeyPrincipal>> apiKeys, Optional<MeteringFeature> metering) {
        NotificationListener notifications = platform.notifications();
        long answerBytes = settings.getAnswerCache().toBytes();
        ExactCache<String, RucAnswers.Answer> answers = RucAnswers.cache(notifications::isListening, answerBytes);
        ExactCache<String, Boolean> unknown = RucAnswers.unknownCache(notifications::isListening,
                RucAnswers.unknownBytes(answerBytes));
        ExactCache<String, RucAnswers.Answer> included = IncludedAnswers.cache(notifications::isListening,
                answerBytes / 4);
        AnswerEviction eviction = new AnswerEviction(AnswerEviction.changeLog(platform.jdbi()), answers, unknown,
                included);
        notifications.on(RegistryChanges.CHANNEL, eviction::registryChanged, eviction::dropAll);
        notifications.on(SunatLists.CHANNEL, eviction::listsChanged, included::changed);
        gauges(environment.metrics(), "answers", answers);
        gauges(environment.metrics(), "unknown", unknown);
        gauges(environment.metrics(), "included", included);
        registry = new RucRegistry(platform.jdbi());
        RucAnswers rucAnswers = new RucAnswers(registry, platform.json(), answers, unknown, ETags::strong);
        IncludedAnswers withLists = new IncludedAnswers(rucAnswers, new RucLists(platform.jdbi(), ubigeos),
                platform.json(), included);
        environment.jersey().register(new RucResource(withLists, platform.json(), limits));
        // After the filters every request passes (request ids, language, metrics), before Jersey's servlet.
        environment.servlets().addFilter("quipu-ruc-lookup", new RucLookupFilter(apiKeys, metering.orElse(null),
                        new RucLookups(withLists), environment.getObjectMapper(),
                        environment.metrics().timer(MetricRegistry.name(RucResource.class, "lookup")),
                        environment.metrics().counter(MetricRegistry.name(RucLookupFilter.class, "answered"))))
                .addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST), true, RucLookupFilter.PREFIX + "*");
        environment.jersey().register(new RucSearchResource(new RucSearch(platform.jdbi()), rucAnswers,
                search.enabled()));
        ChangeRetention retention = new ChangeRetention(platform.jdbi(), platform.clock(), changes.retention());
        environment.jersey().register(new RucHistoryResource(new RucHistory(platform.jdbi(), platform.json(),
                retention::cutoff)));
        platform.manage(Periodic.every("quipu-change-retention", ChangeRetention.FIRST_DELAY, ChangeRetention.EVERY,
                retention::pruneAndLog));
    }

    /**
     * {@code pe.quipu.api.ruc.Rucs.<name>.hits}, {@code .misses}, {@code .evictions}, {@code .size} and
     * {@code .bytes} of one of the caches: whether answers are served from memory, and what a flood displaces.
     */
    private static void gauges(MetricRegistry metrics, String name, ExactCache<?, ?> cache) {
        String prefix = MetricRegistry.name(Rucs.class, name);
        metrics.registerGauge(prefix + ".hits", () -> cache.stats().hitCount());
        metrics.registerGauge(prefix + ".misses", () -> cache.stats().missCount());
        metrics.registerGauge(prefix + ".evictions", () -> cache.stats().evictionCount());
        metrics.registerGauge(prefix + ".size", cache::size);
        metrics.registerGauge(prefix + ".bytes", cache::weight);
    }

    /** Up to {@code n} RUCs of the registry, for warming the lookups up. */
    public List<String> sample(int n) {
        return registry.sample(n);
    }
}
