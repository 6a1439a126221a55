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
 * for {@code recentFreshFor} (the capture interval) after BCRP last showed nothing for them.
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
        if (cached.isPresent() && proven(moneda, cached.get().fecha(), target, today)) {
            // Proven for good, until the tables change: a publication of that very day, or a settled date (its
            // proof is recorded gaps). A recent date's proof also rests on how recently BCRP was asked.
            if (cached.get().fecha().equals(target) || target.isBefore(today.minusDays(1))) {
                read.keep(asked, cached.get());
            }
            return cached.get();
        }
        if (cached.isEmpty() && knownEmpty(moneda, target)) {
            throw nothingOnOrBefore(moneda, target);
        }
        LocalDate from = target.minusDays((cached.isPresent() ? WINDOW_DAYS : FIRST_LOOKUP_DAYS) - 1L);
        if (cached.isPresent() && cached.get().fecha().isAfter(from.minusDays(1))) {
            // What is cached is known; only the days after it are in doubt.
            from = cached.get().fecha().plusDays(1);
        }
        if (start != null && from.isBefore(start)) {
            from = start; // BCRP has nothing before its series starts (and may choke on such dates).
        }
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

    private boolean knownEmpty(Moneda moneda, LocalDate target) {
        EmptyThrough known = emptyThrough.get(moneda);
        return known != null && !target.isAfter(known.through()) && known.trustedAt(clock.instant());
    }

    private void rememberEmpty(Moneda moneda, LocalDate target) {
        Instant now = clock.instant();
        EmptyThrough fresh = new EmptyThrough(target, now, now.plus(emptyAnswerMemory));
        emptyThrough.merge(moneda, fresh, (old, mine) ->
                old.trustedAt(now) && old.through().isAfter(mine.through()) ? old : mine);
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
     * Whether the cache alone proves that {@code publicationFecha} is the answer for {@code target}: every
     * settled day after it is a recorded gap, and the recent days (yesterday and today in Lima, which BCRP may
     * still publish) were asked about within {@code recentFreshFor}.
     */
    private boolean proven(Moneda moneda, LocalDate publicationFecha, LocalDate target, LocalDate today) {
        if (publicationFecha.equals(target)) {
            return true;
        }
        LocalDate firstRecent = today.minusDays(1);
        LocalDate lastSettled = target.isBefore(firstRecent) ? target : firstRecent.minusDays(1);
        long settledInDoubt = ChronoUnit.DAYS.between(publicationFecha, lastSettled);
        if (settledInDoubt > 0 && store.countGaps(moneda, publicationFecha, lastSettled) < settledInDoubt) {
            return false;
        }
        if (target.isBefore(firstRecent)) {
            return true;
        }
        LocalDate firstRecentInDoubt = publicationFecha.plusDays(1).isAfter(firstRecent)
                ? publicationFecha.plusDays(1) : firstRecent;
        return recentlyChecked(moneda, firstRecentInDoubt, target, today);
    }

    private boolean recentlyChecked(Moneda moneda, LocalDate from, LocalDate to, LocalDate today) {
        RecentCheck check = recentChecks.get(moneda);
        if (check == null || !LocalDate.ofInstant(check.at(), LIMA).equals(today)
                || check.from().isAfter(from) || check.to().isBefore(to)) {
            return false;
        }
        Instant now = clock.instant();
        return !now.isBefore(check.at()) && now.isBefore(check.at().plus(recentFreshFor));
    }

    /** BCRP answered for {@code [from, to]} at {@code at}, and that range reached the recent days. */
    private record RecentCheck(Instant at, LocalDate from, LocalDate to) {
    }

    private record Window(Moneda moneda, LocalDate from, LocalDate to) {
    }

    /** BCRP confirmed at {@code at} that nothing was published on or before {@code through}; trusted until then. */
    private record EmptyThrough(LocalDate through, Instant at, Instant until) {
        boolean trustedAt(Instant now) {
            return !now.isBefore(at) && now.isBefore(until);
        }
    }
}
