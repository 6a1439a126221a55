package pe.quipu.api.fx;

import org.slf4j.Logger;
import pe.quipu.api.platform.ExactCache;
import org.slf4j.LoggerFactory;
import pe.quipu.api.domain.DomainException.InvalidInput;
import pe.quipu.api.domain.DomainException.NotFound;
import pe.quipu.api.domain.DomainException.UpstreamUnavailable;
import pe.quipu.core.fx.BcrpClient;
import pe.quipu.core.fx.BcrpFetch;
import pe.quipu.core.fx.BcrpSettings;
import pe.quipu.core.fx.BcrpUnavailableException;
import pe.quipu.core.fx.ExchangeRate;
import pe.quipu.core.fx.ExchangeRateWriter;
import pe.quipu.core.fx.Moneda;

import java.time.Clock;
import java.util.function.BooleanSupplier;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Answers "the rate of this currency on this date" (contract §5): the most recent publication on or before
 * the date, from the database when it can prove that answer, otherwise after asking BCRP.
 * <p>
 * The database proves an answer when a publication {@code p} on or before the date exists and every day
 * after {@code p.fecha} up to the date is a recorded gap (BCRP was asked and had nothing). Gaps are recorded
 * only for settled days, before yesterday in Lima: BCRP may still publish today's rate, and a rate published
 * after midnight would otherwise leave yesterday a gap for good. Yesterday and today count as checked only
 * for {@code recentFreshFor} (the capture interval) after BCRP last showed nothing for them. {@link RateProof}
 * works out, from the dates alone, which days a proof needs.
 * <p>
 * A date before its currency's series starts ({@code bcrp.seriesStart}) is 404 without asking BCRP, and no request
 * reaches back before that day. A date BCRP confirmed has nothing on or before it (no publication cached, and an
 * empty answer for the year before it) is remembered for {@code bcrp.emptyAnswerMemory}: within it, that date and
 * earlier ones are 404 without asking again, so a loop over old dates costs BCRP one request.
 */
public final class ExchangeRateService {

    public static final ZoneId LIMA = ExchangeRateWriter.LIMA;
    /** Days asked for when a date is not cached: more than the longest run of Peruvian non-business days. */
    static final int WINDOW_DAYS = 14;
    /**
     * Days asked for when nothing on or before the date is cached at all: an empty answer then means BCRP
     * published nothing in the year before the date (404), not just in the last two weeks. One request, so
     * the 5 s bound holds, and it fills the cache for the dates around it.
     */
    static final int FIRST_LOOKUP_DAYS = 370;

    /** NOTIFY channel: {@code exchange_rates} or {@code exchange_rate_gaps} changed (changeset 013). */
    public static final String CHANGED_CHANNEL = "quipu_exchange_rates";

    private static final Logger LOG = LoggerFactory.getLogger(ExchangeRateService.class);

    private final ExchangeRateStore store;
    private final BcrpClient bcrp;
    private final Clock clock;
    private final Duration recentFreshFor;
    /** The last BCRP answer that covered recent days, per currency; see the class comment. */
    private final Map<Moneda, RecentCheck> recentChecks = new ConcurrentHashMap<>();
    /** Fetches under way, so that simultaneous requests for the same range ask BCRP (and its anti-bot) once. */
    private final Map<Window, CompletableFuture<BcrpFetch>> inFlight = new ConcurrentHashMap<>();
    private final Map<Moneda, LocalDate> seriesStart;
    private final Duration emptyAnswerMemory;
    /** Per currency, the latest date BCRP confirmed has nothing on or before it, and until when that is trusted. */
    private final Map<Moneda, EmptyThrough> emptyThrough = new ConcurrentHashMap<>();
    /** Answers the database proved for good (see {@link #rate}), by currency and date. */
    private final ExactCache<Asked, ExchangeRate> proven;

    /** A question: the rate of this currency on this date. */
    public record Asked(Moneda moneda, LocalDate fecha) {
    }

    /**
     * With the default series starts and memory of empty answers ({@link BcrpSettings}), and no answer kept in
     * memory: every request reads the database.
     */
    public ExchangeRateService(ExchangeRateStore store, BcrpClient bcrp, Clock clock, Duration recentFreshFor) {
        this(store, bcrp, clock, recentFreshFor, BcrpSettings.defaultSeriesStart(),
                new BcrpSettings().emptyAnswerMemory(), cache(() -> false));
    }

    /** A cache for proven answers, kept while {@code listening} holds (a few hundred bytes each, 1 MB in all). */
    public static ExactCache<Asked, ExchangeRate> cache(BooleanSupplier listening) {
        return new ExactCache<>(listening, 1 << 20, rate -> 100);
    }

    /**
     * @param seriesStart       the first day of each currency's series (a currency left out has no bound)
     * @param emptyAnswerMemory how long an empty answer for "on or before a date" is trusted
     * @param proven            where answers proven for good are kept; {@link ExactCache#changed} is called on
     *                          every change to the rates ({@link #CHANGED_CHANNEL})
     */
    public ExchangeRateService(ExchangeRateStore store, BcrpClient bcrp, Clock clock, Duration recentFreshFor,
                               Map<Moneda, LocalDate> seriesStart, Duration emptyAnswerMemory,
                               ExactCache<Asked, ExchangeRate> proven) {
        this.store = store;
        this.bcrp = bcrp;
        this.clock = clock;
        this.recentFreshFor = recentFreshFor;
        this.seriesStart = Map.copyOf(seriesStart);
        this.emptyAnswerMemory = emptyAnswerMemory;
        this.proven = proven;
    }

    /**
     * @param fecha the date asked for; empty for the latest publication (the answer for today in Lima)
     * @throws InvalidInput for a date after today; NotFound when nothing was published on or before the date;
     *                      UpstreamUnavailable when BCRP fails and nothing cached answers
     */
    public ExchangeRate rate(Moneda moneda, Optional<LocalDate> fecha) {
        LocalDate today = today();
        LocalDate target = fecha.orElse(today);
        if (target.isAfter(today)) {
            throw new InvalidInput("fecha", "must not be after today in Lima (" + today + ")");
        }
        LocalDate start = seriesStart.get(moneda);
        if (start != null && target.isBefore(start)) {
            throw new NotFound("BCRP's " + moneda + " series starts on " + start + ": no rate on or before " + target);
        }
        Asked asked = new Asked(moneda, target);
        ExactCache<Asked, ExchangeRate>.Read read = proven.read();
        ExchangeRate kept = read.kept(asked);
        if (kept != null) {
            return kept;
        }
        Optional<ExchangeRate> cached = store.latestOnOrBefore(moneda, target);
        if (cached.isPresent()) {
            RateProof proof = new RateProof(cached.get().fecha(), target, today);
            if (proven(moneda, proof)) {
                if (proof.forGood()) {
                    read.keep(asked, cached.get());
                }
                return cached.get();
            }
        }
        if (cached.isEmpty() && knownEmpty(moneda, target)) {
            throw nothingOnOrBefore(moneda, target);
        }
        LocalDate from = fetchFrom(target, cached.map(ExchangeRate::fecha), start);
        try {
            refresh(moneda, from, target);
        } catch (BcrpUnavailableException e) {
            LOG.warn("BCRP unavailable for {} {}..{}: {}", moneda, from, target, e.getMessage());
            // The best answer Quipu has: the latest cached publication on or before the date.
            return cached.orElseThrow(() -> new UpstreamUnavailable("BCRP did not answer and no " + moneda + " rate on or before " + target + " is cached"));
        }
        Optional<ExchangeRate> found = store.latestOnOrBefore(moneda, target);
        if (found.isEmpty()) {
            // Nothing cached before, and BCRP's answer for the year before the date (or since its series starts)
            // is empty: its series have no year-long holes, so nothing exists on or before the date at all.
            rememberEmpty(moneda, target);
            throw nothingOnOrBefore(moneda, target);
        }
        return found.get();
    }

    private static NotFound nothingOnOrBefore(Moneda moneda, LocalDate target) {
        return new NotFound("BCRP published no " + moneda + " rate on or before " + target);
    }

    /**
     * The first day to ask BCRP about for {@code target}: a window of {@link #WINDOW_DAYS} ending on it when an
     * older publication is cached ({@code cachedFecha}), of {@link #FIRST_LOOKUP_DAYS} when none is; never a day
     * already known (on or before the cached publication), nor one before the series starts ({@code seriesStart};
     * null for no bound).
     */
    static LocalDate fetchFrom(LocalDate target, Optional<LocalDate> cachedFecha, LocalDate seriesStart) {
        LocalDate from = target.minusDays((cachedFecha.isPresent() ? WINDOW_DAYS : FIRST_LOOKUP_DAYS) - 1L);
        if (cachedFecha.isPresent() && cachedFecha.get().isAfter(from.minusDays(1))) {
            // What is cached is known; only the days after it are in doubt.
            from = cachedFecha.get().plusDays(1);
        }
        if (seriesStart != null && from.isBefore(seriesStart)) {
            from = seriesStart; // BCRP has nothing before its series starts (and may choke on such dates).
        }
        return from;
    }

    private boolean knownEmpty(Moneda moneda, LocalDate target) {
        EmptyThrough known = emptyThrough.get(moneda);
        return known != null && known.answers(target, clock.instant());
    }

    private void rememberEmpty(Moneda moneda, LocalDate target) {
        Instant now = clock.instant();
        EmptyThrough fresh = new EmptyThrough(target, now, now.plus(emptyAnswerMemory));
        emptyThrough.merge(moneda, fresh, (old, mine) -> old.outlasts(mine, now) ? old : mine);
    }

    /**
     * Asks BCRP for {@code [from, to]} and stores what it says: its publications, and every day of the range
     * before today (Lima) without one as a gap.
     *
     * @throws BcrpUnavailableException when BCRP does not answer usefully
     */
    public BcrpFetch refresh(Moneda moneda, LocalDate from, LocalDate to) {
        Window window = new Window(moneda, from, to);
        CompletableFuture<BcrpFetch> mine = new CompletableFuture<>();
        CompletableFuture<BcrpFetch> running = inFlight.putIfAbsent(window, mine);
        if (running != null) {
            try {
                return running.join();
            } catch (CompletionException e) {
                throw e.getCause() instanceof RuntimeException cause ? cause : e;
            }
        }
        try {
            BcrpFetch fetch = fetchAndStore(window);
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

    private BcrpFetch fetchAndStore(Window window) {
        BcrpFetch fetch = bcrp.fetch(window.moneda(), window.from(), window.to());
        Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS);
        LocalDate firstRecent = LocalDate.ofInstant(now, LIMA).minusDays(1);
        // Publications, and the settled days without one as gaps (ExchangeRateWriter.settledGaps).
        store.store(fetch, now);
        if (!window.to().isBefore(firstRecent)) {
            recentChecks.put(window.moneda(), new RecentCheck(now, window.from(), window.to()));
        }
        return fetch;
    }

    /**
     * Whether the cache alone proves the proof's publication is the answer for its date: every settled day after it
     * is a recorded gap, and the recent days (yesterday and today in Lima, which BCRP may still publish) were asked
     * about within {@code recentFreshFor}.
     */
    private boolean proven(Moneda moneda, RateProof proof) {
        if (proof.ofTheDate()) {
            return true;
        }
        Optional<RateProof.Days> settled = proof.settledInDoubt();
        if (settled.isPresent() && store.countGaps(moneda, settled.get().first().minusDays(1), settled.get().last())
                < settled.get().count()) {
            return false;
        }
        Optional<RateProof.Days> recent = proof.recentInDoubt();
        if (recent.isEmpty()) {
            return true;
        }
        RecentCheck check = recentChecks.get(moneda);
        return check != null && check.proves(recent.get(), proof.today(), clock.instant(), recentFreshFor);
    }

    /** BCRP answered for {@code [from, to]} at {@code at}, and that range reached the recent days. */
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

    private record Window(Moneda moneda, LocalDate from, LocalDate to) {
    }

    /** BCRP confirmed at {@code at} that nothing was published on or before {@code through}; trusted until then. */
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
}
