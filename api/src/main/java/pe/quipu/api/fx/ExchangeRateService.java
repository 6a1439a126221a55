package pe.quipu.api.fx;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import pe.quipu.api.domain.DomainException.InvalidInput;
import pe.quipu.api.domain.DomainException.NotFound;
import pe.quipu.api.domain.DomainException.UpstreamUnavailable;
import pe.quipu.api.domain.Text;
import pe.quipu.api.platform.ExactCache;
import pe.quipu.core.fx.BcrpSettings;
import pe.quipu.core.fx.ExchangeRate;
import pe.quipu.core.fx.ExchangeRateWriter;
import pe.quipu.core.fx.Fuente;
import pe.quipu.core.fx.Moneda;
import pe.quipu.core.fx.RateFetch;
import pe.quipu.core.fx.RateSeries;
import pe.quipu.core.fx.RateSource;
import pe.quipu.core.fx.RatesUnavailableException;
import pe.quipu.core.fx.SunatFxSettings;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;

/**
 * Answers "the rate of this series on this date" (contract §5, §12): the most recent publication of the source on or
 * before the date, from the database when it can prove that answer, otherwise after asking the source; and "every
 * publication of this series in a range of days", by the same proof day by day. Every rule holds per series (source
 * and currency): the cache and its proofs, the fetch windows, the bound, the memory of empty answers.
 * <p>
 * The database proves an answer when a publication {@code p} on or before the date exists and every day
 * after {@code p.fecha} up to the date is a recorded gap (the source was asked and had nothing). Gaps are recorded
 * only for settled days, before yesterday in Lima: the source may still publish today's rate, and a rate published
 * after midnight would otherwise leave yesterday a gap for good. Yesterday and today count as checked only
 * for {@code recentFreshFor} (the source's capture interval) after it last showed nothing for them. {@link RateProof}
 * works out, from the dates alone, which days a proof needs, and {@link RangeProof} the same for a range.
 * <p>
 * A date before its series starts ({@code bcrp.seriesStart}, {@code sunatFx.seriesStart}) is 404 without asking, and
 * no request reaches back before that day. A date the source confirmed has nothing on or before it (no publication
 * cached, and an empty answer for the window before it) is remembered for the source's {@code emptyAnswerMemory}:
 * within it, that date and earlier ones are 404 without asking again, so a loop over old dates costs one request.
 */
public final class ExchangeRateService {

    public static final ZoneId LIMA = ExchangeRateWriter.LIMA;
    /** Days asked for when a date is not cached: more than the longest run of Peruvian non-business days. */
    static final int WINDOW_DAYS = 14;
    /**
     * Days asked of BCRP (BCRP's and SBS's series) when nothing on or before the date is cached at all: an empty answer
     * then means nothing was published in the year before the date (404), not just in the last two weeks. One request,
     * so the 5 s bound holds, and it fills the cache for the dates around it. SUNAT is asked for {@link #WINDOW_DAYS}
     * only: it answers month by month, and a settled month without rates is a failure of SUNAT's rather than a sign
     * that nothing exists (SunatResponseParser), so a year of requests would prove nothing more.
     */
    static final int FIRST_LOOKUP_DAYS = 370;
    /** The longest range of days one request may ask for (contract §12). */
    public static final int MAX_RANGE_DAYS = 366;

    /** NOTIFY channel: {@code exchange_rates} or {@code exchange_rate_gaps} changed (changeset 013). */
    public static final String CHANGED_CHANNEL = "quipu_exchange_rates";

    private static final Logger LOG = LoggerFactory.getLogger(ExchangeRateService.class);

    /**
     * Where one source's rates come from, and how long its answers count.
     *
     * @param recentFreshFor    how long the source's word that yesterday or today has no publication holds (its
     *                          capture interval)
     * @param emptyAnswerMemory how long its word that nothing was published on or before a date holds
     */
    public record Upstream(RateSource source, Duration recentFreshFor, Duration emptyAnswerMemory) {
    }

    private final ExchangeRateStore store;
    private final Map<Fuente, Upstream> upstreams;
    private final Clock clock;
    /** The last answer that covered recent days, per series; see the class comment. */
    private final Map<RateSeries, RecentCheck> recentChecks = new ConcurrentHashMap<>();
    /** Fetches under way, so that simultaneous requests for the same range ask the source (and its anti-bot) once. */
    private final Map<Window, CompletableFuture<RateFetch>> inFlight = new ConcurrentHashMap<>();
    private final Map<RateSeries, LocalDate> seriesStart;
    /** Per series, the latest date its source confirmed has nothing on or before it, and until when that is trusted. */
    private final Map<RateSeries, EmptyThrough> emptyThrough = new ConcurrentHashMap<>();
    /** Answers the database proved for good (see {@link #rate}), by series and date. */
    private final ExactCache<Asked, ExchangeRate> proven;
    /** Ranges the database proved for good, every day a publication or a gap (see {@link #range}). */
    private final ExactCache<Range, List<ExchangeRate>> provenRanges;

    /** A question: the rate of this series on this date. */
    public record Asked(RateSeries series, LocalDate fecha) {
    }

    /** A question: the publications of this series from {@code from} to {@code to}. */
    public record Range(RateSeries series, LocalDate from, LocalDate to) {
    }

    /**
     * With the default series starts ({@link #defaultSeriesStarts}), and no answer kept in memory: every request reads
     * the database.
     */
    public ExchangeRateService(ExchangeRateStore store, Map<Fuente, Upstream> upstreams, Clock clock) {
        this(store, upstreams, clock, defaultSeriesStarts(), cache(() -> false), rangeCache(() -> false));
    }

    /** A cache for proven answers, kept while {@code listening} holds (a few hundred bytes each, 1 MB in all). */
    public static ExactCache<Asked, ExchangeRate> cache(BooleanSupplier listening) {
        return new ExactCache<>(listening, 1 << 20, rate -> 100);
    }

    /** A cache for proven ranges, kept while {@code listening} holds (about 100 bytes a day, 2 MB in all). */
    public static ExactCache<Range, List<ExchangeRate>> rangeCache(BooleanSupplier listening) {
        return new ExactCache<>(listening, 2 << 20, rates -> 50 + 100 * rates.size());
    }

    /**
     * @param upstreams     the source of each {@link Fuente} served
     * @param seriesStart   the first day of each series (a series left out has no bound)
     * @param proven        where answers proven for good are kept; {@link ExactCache#changed} is called on every
     *                      change to the rates ({@link #CHANGED_CHANNEL})
     * @param provenRanges  the same for ranges
     */
    public ExchangeRateService(ExchangeRateStore store, Map<Fuente, Upstream> upstreams, Clock clock,
                               Map<RateSeries, LocalDate> seriesStart, ExactCache<Asked, ExchangeRate> proven,
                               ExactCache<Range, List<ExchangeRate>> provenRanges) {
        this.store = store;
        this.upstreams = Map.copyOf(upstreams);
        this.clock = clock;
        this.seriesStart = Map.copyOf(seriesStart);
        this.proven = proven;
        this.provenRanges = provenRanges;
    }

    /**
     * Each series' first day: BCRP's from {@code bcrp.seriesStart}, SBS's from {@code bcrp.sbsSeriesStart}, SUNAT's
     * from {@code sunatFx.seriesStart}.
     */
    public static Map<RateSeries, LocalDate> seriesStarts(BcrpSettings bcrp, SunatFxSettings sunat) {
        Map<RateSeries, LocalDate> starts = new HashMap<>();
        for (Moneda moneda : Fuente.BCRP.monedas()) {
            bcrp.seriesStart(moneda).ifPresent(start -> starts.put(RateSeries.of(Fuente.BCRP, moneda), start));
        }
        bcrp.sbsSeriesStart().ifPresent(start -> starts.put(RateSeries.of(Fuente.SBS, Moneda.USD), start));
        if (sunat.seriesStart() != null) {
            starts.put(RateSeries.of(Fuente.SUNAT, Moneda.USD), sunat.seriesStart());
        }
        return starts;
    }

    public static Map<RateSeries, LocalDate> defaultSeriesStarts() {
        return seriesStarts(new BcrpSettings(), new SunatFxSettings());
    }

    /**
     * @param fecha the date asked for; empty for the latest publication (the answer for today in Lima)
     * @throws InvalidInput for a date after today; NotFound when nothing was published on or before the date;
     *                      UpstreamUnavailable when the source fails and nothing cached answers
     */
    public ExchangeRate rate(RateSeries series, Optional<LocalDate> fecha) {
        Upstream upstream = upstream(series);
        LocalDate today = today();
        LocalDate target = fecha.orElse(today);
        if (target.isAfter(today)) {
            throw new InvalidInput("fecha", Text.of("domain.date.not_after_today", today));
        }
        LocalDate start = seriesStart.get(series);
        if (start != null && target.isBefore(start)) {
            throw new NotFound(Text.of("fx.before_series_start", series.fuente().publisher(), series.moneda(), start,
                    target));
        }
        Asked asked = new Asked(series, target);
        ExactCache<Asked, ExchangeRate>.Read read = proven.read();
        ExchangeRate kept = read.kept(asked);
        if (kept != null) {
            return kept;
        }
        Optional<ExchangeRate> cached = store.latestOnOrBefore(series, target);
        if (cached.isPresent()) {
            RateProof proof = new RateProof(cached.get().fecha(), target, today);
            if (proven(series, proof)) {
                if (proof.forGood()) {
                    read.keep(asked, cached.get());
                }
                return cached.get();
            }
        }
        if (cached.isEmpty() && knownEmpty(series, target)) {
            throw nothingOnOrBefore(series, target);
        }
        LocalDate from = fetchFrom(target, cached.map(ExchangeRate::fecha), start, firstLookupDays(series.fuente()));
        try {
            refresh(series, from, target);
        } catch (RatesUnavailableException e) {
            LOG.warn("{} unavailable for {} {}..{}: {}", series.fuente().upstream(), series, from, target,
                    e.getMessage());
            // The best answer Quipu has: the latest cached publication on or before the date.
            return cached.orElseThrow(() -> new UpstreamUnavailable(Text.of("fx.upstream_silent_none_cached",
                    series.fuente().upstream(), described(series), target)));
        }
        Optional<ExchangeRate> found = store.latestOnOrBefore(series, target);
        if (found.isEmpty()) {
            // Nothing cached before, and the source's answer for the window before the date (or since its series
            // starts) is empty: nothing exists on or before the date at all.
            rememberEmpty(series, target, upstream.emptyAnswerMemory());
            throw nothingOnOrBefore(series, target);
        }
        return found.get();
    }

    /**
     * Every publication of the series dated {@code desde} to {@code hasta}, oldest first (contract §12). Days the
     * database cannot account for are asked of the source first, within the same bound as a single date. When the
     * source fails, the answer is still served if only recent days (yesterday and today, which may still be
     * published) were in doubt, as a single date would be; a settled day in doubt is never left out silently.
     *
     * @throws InvalidInput for {@code hasta} after today, {@code desde} after {@code hasta}, or more than
     *                      {@value #MAX_RANGE_DAYS} days; UpstreamUnavailable when the source fails and a settled day of
     *                      the range is unknown
     */
    public List<ExchangeRate> range(RateSeries series, LocalDate desde, LocalDate hasta) {
        upstream(series);
        LocalDate today = today();
        if (hasta.isAfter(today)) {
            throw new InvalidInput("hasta", Text.of("domain.date.not_after_today", today));
        }
        if (desde.isAfter(hasta)) {
            throw new InvalidInput("desde", Text.of("fx.desde_after_hasta", hasta));
        }
        long days = ChronoUnit.DAYS.between(desde, hasta) + 1;
        if (days > MAX_RANGE_DAYS) {
            throw new InvalidInput("hasta", Text.of("fx.range_too_long", MAX_RANGE_DAYS, desde, hasta, days));
        }
        LocalDate start = seriesStart.get(series);
        LocalDate from = start != null && desde.isBefore(start) ? start : desde;
        if (from.isAfter(hasta) || knownEmpty(series, hasta)) {
            return List.of();
        }
        Range range = new Range(series, from, hasta);
        ExactCache<Range, List<ExchangeRate>>.Read read = provenRanges.read();
        List<ExchangeRate> kept = read.kept(range);
        if (kept != null) {
            return kept;
        }
        ExchangeRateStore.Days known = store.days(series, from, hasta);
        RangeProof proof = RangeProof.of(from, hasta, knownDays(known), today);
        if (proof.complete()) {
            read.keep(range, known.publications());
            return known.publications();
        }
        if (proof.settledInDoubt().isEmpty() && recentlyChecked(series, proof.recentInDoubt().orElseThrow(), today)) {
            return known.publications();
        }
        RateProof.Days fetch = proof.toFetch().orElseThrow();
        try {
            refresh(series, fetch.first(), fetch.last());
        } catch (RatesUnavailableException e) {
            LOG.warn("{} unavailable for {} {}..{}: {}", series.fuente().upstream(), series, fetch.first(),
                    fetch.last(), e.getMessage());
            if (proof.settledInDoubt().isPresent()) {
                RateProof.Days unknown = proof.settledInDoubt().get();
                throw new UpstreamUnavailable(unknown.count() > 1
                        ? Text.of("fx.upstream_silent_days_unknown", series.fuente().upstream(), described(series),
                                unknown.first(), unknown.last())
                        : Text.of("fx.upstream_silent_day_unknown", series.fuente().upstream(), described(series),
                                unknown.first()));
            }
            return known.publications();
        }
        return store.days(series, from, hasta).publications();
    }

    private static Set<LocalDate> knownDays(ExchangeRateStore.Days days) {
        Set<LocalDate> known = new HashSet<>(days.gaps());
        days.publications().forEach(p -> known.add(p.fecha()));
        return known;
    }

    private Upstream upstream(RateSeries series) {
        Upstream upstream = upstreams.get(series.fuente());
        if (upstream == null) {
            throw new IllegalStateException("no source of " + series.fuente().code() + " rates is configured");
        }
        return upstream;
    }

    /** "USD" for BCRP's own series, as messages have always said; "SUNAT USD" for the others. */
    private static Text described(RateSeries series) {
        return series.fuente() == Fuente.BCRP ? Text.of("fx.series.own", series.moneda().name())
                : Text.of("fx.series.published", series.fuente().publisher(), series.moneda().name());
    }

    private static NotFound nothingOnOrBefore(RateSeries series, LocalDate target) {
        return new NotFound(Text.of("fx.none_published", series.fuente().publisher(), series.moneda(), target));
    }

    /** Days asked for when nothing on or before a date is cached; see {@link #FIRST_LOOKUP_DAYS}. */
    static int firstLookupDays(Fuente fuente) {
        return fuente == Fuente.SUNAT ? WINDOW_DAYS : FIRST_LOOKUP_DAYS;
    }

    /**
     * The first day to ask the source about for {@code target}: a window of {@link #WINDOW_DAYS} ending on it when an
     * older publication is cached ({@code cachedFecha}), of {@code firstLookupDays} when none is; never a day already
     * known (on or before the cached publication), nor one before the series starts ({@code seriesStart}; null for no
     * bound).
     */
    static LocalDate fetchFrom(LocalDate target, Optional<LocalDate> cachedFecha, LocalDate seriesStart,
                               int firstLookupDays) {
        LocalDate from = target.minusDays((cachedFecha.isPresent() ? WINDOW_DAYS : firstLookupDays) - 1L);
        if (cachedFecha.isPresent() && cachedFecha.get().isAfter(from.minusDays(1))) {
            // What is cached is known; only the days after it are in doubt.
            from = cachedFecha.get().plusDays(1);
        }
        if (seriesStart != null && from.isBefore(seriesStart)) {
            from = seriesStart; // Nothing exists before the series starts (and BCRP may choke on such dates).
        }
        return from;
    }

    private boolean knownEmpty(RateSeries series, LocalDate target) {
        EmptyThrough known = emptyThrough.get(series);
        return known != null && known.answers(target, clock.instant());
    }

    private void rememberEmpty(RateSeries series, LocalDate target, Duration memory) {
        Instant now = clock.instant();
        EmptyThrough fresh = new EmptyThrough(target, now, now.plus(memory));
        emptyThrough.merge(series, fresh, (old, mine) -> old.outlasts(mine, now) ? old : mine);
    }

    /**
     * Asks the series' source for {@code [from, to]} and stores what it says: its publications, and every settled day
     * of the range without one as a gap.
     *
     * @throws RatesUnavailableException when the source does not answer usefully
     */
    public RateFetch refresh(RateSeries series, LocalDate from, LocalDate to) {
        Window window = new Window(series, from, to);
        CompletableFuture<RateFetch> mine = new CompletableFuture<>();
        CompletableFuture<RateFetch> running = inFlight.putIfAbsent(window, mine);
        if (running != null) {
            try {
                return running.join();
            } catch (CompletionException e) {
                throw e.getCause() instanceof RuntimeException cause ? cause : e;
            }
        }
        try {
            RateFetch fetch = fetchAndStore(window);
            mine.complete(fetch);
            return fetch;
        } catch (RuntimeException e) {
            mine.completeExceptionally(e);
            throw e;
        } finally {
            inFlight.remove(window, mine);
        }
    }

    public LocalDate today() {
        return LocalDate.ofInstant(clock.instant(), LIMA);
    }

    private RateFetch fetchAndStore(Window window) {
        RateFetch fetch = upstream(window.series()).source().fetch(window.series(), window.from(), window.to());
        Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS);
        LocalDate firstRecent = LocalDate.ofInstant(now, LIMA).minusDays(1);
        // Publications, and the settled days without one as gaps (ExchangeRateWriter.settledGaps).
        store.store(fetch, now);
        if (!window.to().isBefore(firstRecent)) {
            recentChecks.put(window.series(), new RecentCheck(now, window.from(), window.to()));
        }
        return fetch;
    }

    /**
     * Whether the cache alone proves the proof's publication is the answer for its date: every settled day after it
     * is a recorded gap, and the recent days (yesterday and today in Lima, which the source may still publish) were
     * asked about within the source's {@code recentFreshFor}.
     */
    private boolean proven(RateSeries series, RateProof proof) {
        if (proof.ofTheDate()) {
            return true;
        }
        Optional<RateProof.Days> settled = proof.settledInDoubt();
        if (settled.isPresent() && store.countGaps(series, settled.get().first().minusDays(1), settled.get().last())
                < settled.get().count()) {
            return false;
        }
        Optional<RateProof.Days> recent = proof.recentInDoubt();
        return recent.isEmpty() || recentlyChecked(series, recent.get(), proof.today());
    }

    private boolean recentlyChecked(RateSeries series, RateProof.Days days, LocalDate today) {
        RecentCheck check = recentChecks.get(series);
        return check != null && check.proves(days, today, clock.instant(), upstream(series).recentFreshFor());
    }

    /** The source answered for {@code [from, to]} at {@code at}, and that range reached the recent days. */
    record RecentCheck(Instant at, LocalDate from, LocalDate to) {

        /**
         * Whether this answer still shows that nothing was published on {@code days}: it covered them, it was given
         * {@code today} (Lima), and it is less than {@code freshFor} old.
         */
        boolean proves(RateProof.Days days, LocalDate today, Instant now, Duration freshFor) {
            return LocalDate.ofInstant(at, LIMA).equals(today) && !from.isAfter(days.first())
                    && !to.isBefore(days.last()) && !now.isBefore(at) && now.isBefore(at.plus(freshFor));
        }
    }

    private record Window(RateSeries series, LocalDate from, LocalDate to) {
    }

    /** The source confirmed at {@code at} that nothing was published on or before {@code through}; trusted until then. */
    record EmptyThrough(LocalDate through, Instant at, Instant until) {

        boolean trustedAt(Instant now) {
            return !now.isBefore(at) && now.isBefore(until);
        }

        /** Whether this answer says, at {@code now}, that nothing was published on or before {@code target}. */
        boolean answers(LocalDate target, Instant now) {
            return !target.isAfter(through) && trustedAt(now);
        }

        /** Whether to remember this answer rather than {@code newer}: it is still trusted and reaches later. */
        boolean outlasts(EmptyThrough newer, Instant now) {
            return trustedAt(now) && through.isAfter(newer.through());
        }
    }

    /** The sources as Quipu has them: BCRP's API answers for BCRP's and SBS's series, SUNAT for its own. */
    public static Map<Fuente, Upstream> upstreams(Upstream bcrpAndSbs, Upstream sunat) {
        Map<Fuente, Upstream> upstreams = new EnumMap<>(Fuente.class);
        upstreams.put(Fuente.BCRP, bcrpAndSbs);
        upstreams.put(Fuente.SBS, bcrpAndSbs);
        upstreams.put(Fuente.SUNAT, sunat);
        return upstreams;
    }
}
