package pe.quipu.core.fx;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.YearMonth;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Fetches SUNAT's USD rates from its {@code listarTipoCambio} publication, as public clients use it (contract §12):
 * {@code POST {base}/cl-at-ittipcam/tcS01Alias/listarTipoCambio} with {@code {"anio": 2026, "mes": 8, "token": "…"}}
 * ({@code mes} counts from 0), {@code Origin} and {@code Referer} set to the base URL. SUNAT answers a whole month per
 * request, so a range is asked for month by month, at most {@value #MONTHS_AT_ONCE} months at a time, and the whole
 * fetch is bounded by {@link SunatFxSettings#worstCase()} (4.6 s by default), as one BCRP fetch is: a request that
 * needs SUNAT still answers within 5 s. Each month's attempts are bounded and retried as BCRP's are.
 */
public final class SunatClient implements RateSource, AutoCloseable {

    public static final String PATH = "/cl-at-ittipcam/tcS01Alias/listarTipoCambio";
    /** Months asked for at once: a year's range in four rounds, without a burst of thirteen requests at SUNAT. */
    static final int MONTHS_AT_ONCE = 4;
    private static final String TOKEN_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    private static final int TOKEN_LENGTH = 32;

    private final SunatFxSettings settings;
    private final Clock clock;
    private final SunatResponseParser parser = new SunatResponseParser();
    private final Attempts attempts;
    private final URI uri;
    private final SecureRandom random = new SecureRandom();
    /** Runs the months of a range; never awaited on a request's thread beyond the fetch's bound. */
    private final ExecutorService months = Executors.newVirtualThreadPerTaskExecutor();

    public SunatClient(SunatFxSettings settings, Clock clock) {
        this.settings = settings;
        this.clock = clock;
        this.attempts = new Attempts("SUNAT", settings.attemptTimeout(), settings.maxAttempts(), settings.retryWait());
        this.uri = URI.create(settings.baseUrl() + PATH);
    }

    /**
     * @return the publications SUNAT lists in {@code [from, to]} and the days it lists with one side only
     * @throws RatesUnavailableException when a month of the range got no usable answer within the bound
     */
    @Override
    public RateFetch fetch(RateSeries series, LocalDate from, LocalDate to) {
        if (series.fuente() != Fuente.SUNAT) {
            throw new IllegalArgumentException(series + " is not SUNAT's");
        }
        if (to.isBefore(from)) {
            throw new IllegalArgumentException("empty range " + from + ".." + to);
        }
        List<YearMonth> wanted = new ArrayList<>();
        for (YearMonth m = YearMonth.from(from); !m.isAfter(YearMonth.from(to)); m = m.plusMonths(1)) {
            wanted.add(m);
        }
        List<SunatResponseParser.Result> answers = wanted.size() == 1 ? List.of(month(wanted.getFirst()))
                : concurrently(wanted, from, to);
        // SUNAT answers whole months; only the range asked for is returned, as from BCRP.
        List<ExchangeRate> publications = new ArrayList<>();
        Set<LocalDate> withoutValue = new TreeSet<>();
        for (SunatResponseParser.Result answer : answers) {
            answer.publications().stream().filter(p -> !p.fecha().isBefore(from) && !p.fecha().isAfter(to))
                    .forEach(publications::add);
            answer.listedWithoutValue().stream().filter(d -> !d.isBefore(from) && !d.isAfter(to))
                    .forEach(withoutValue::add);
        }
        return new RateFetch(series, from, to, publications, withoutValue);
    }

    private List<SunatResponseParser.Result> concurrently(List<YearMonth> wanted, LocalDate from, LocalDate to) {
        Semaphore slots = new Semaphore(MONTHS_AT_ONCE);
        List<Future<SunatResponseParser.Result>> pending = new ArrayList<>();
        for (YearMonth m : wanted) {
            pending.add(months.submit(() -> {
                slots.acquire();
                try {
                    return month(m);
                } finally {
                    slots.release();
                }
            }));
        }
        long deadline = System.nanoTime() + settings.worstCase().toNanos();
        List<SunatResponseParser.Result> answers = new ArrayList<>();
        try {
            for (Future<SunatResponseParser.Result> month : pending) {
                answers.add(month.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
            }
            return answers;
        } catch (TimeoutException e) {
            throw new RatesUnavailableException("SUNAT did not answer every month of " + from + ".." + to
                    + " within " + settings.worstCase().toMillis() + " ms", e);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RatesUnavailableException failure ? failure
                    : new RatesUnavailableException("SUNAT's answer for " + from + ".." + to + " failed: " + e.getCause(),
                    e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RatesUnavailableException("interrupted while asking SUNAT", e);
        } finally {
            pending.forEach(month -> month.cancel(true));
        }
    }

    /** One month, with its retries. */
    SunatResponseParser.Result month(YearMonth month) {
        return attempts.retried("USD " + month, () -> attempt(month));
    }

    private SunatResponseParser.Result attempt(YearMonth month) throws Exception {
        String body = "{\"anio\":" + month.getYear() + ",\"mes\":" + (month.getMonthValue() - 1) + ",\"token\":\""
                + token() + "\"}";
        HttpResponse<String> response = attempts.exchange(HttpRequest.newBuilder(uri)
                .timeout(settings.attemptTimeout())
                .header("Content-Type", "application/json; charset=UTF-8")
                .header("Accept", "application/json")
                .header("Origin", settings.baseUrl())
                .header("Referer", settings.baseUrl())
                .header("User-Agent", "Quipu")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build());
        Instant capturedAt = clock.instant().truncatedTo(ChronoUnit.MICROS);
        return parser.parse(response.body(), month, capturedAt, settings.seriesStart());
    }

    /** A fresh random token per request, as SUNAT's own page sends one; nothing Quipu holds goes into it. */
    private String token() {
        StringBuilder token = new StringBuilder(TOKEN_LENGTH);
        for (int i = 0; i < TOKEN_LENGTH; i++) {
            token.append(TOKEN_ALPHABET.charAt(random.nextInt(TOKEN_ALPHABET.length())));
        }
        return token.toString();
    }

    @Override
    public void close() {
        months.shutdownNow();
        attempts.close();
    }
}
