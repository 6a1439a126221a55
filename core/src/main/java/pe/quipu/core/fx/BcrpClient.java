package pe.quipu.core.fx;

import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

/**
 * Fetches one currency's rates for a date range from BCRP's statistics API. Each HTTP attempt is bounded by
 * {@code attemptTimeout} (connection to last byte); failed attempts (I/O errors, timeouts, non-2xx, a body
 * that is not BCRP's JSON) are retried with resilience4j-retry up to {@code maxAttempts}, {@code retryWait}
 * apart. So a fetch takes at most {@link BcrpSettings#worstCase()} (3 × 1.4 s + 2 × 0.2 s = 4.6 s by
 * default), which keeps an on-demand request under 5 s.
 */
public final class BcrpClient implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(BcrpClient.class);

    private final BcrpSettings settings;
    private final Clock clock;
    private final BcrpResponseParser parser;
    private final HttpClient http;
    private final Retry retry;

    public BcrpClient(BcrpSettings settings, Clock clock) {
        this.settings = settings;
        this.clock = clock;
        this.parser = new BcrpResponseParser();
        this.http = HttpClient.newBuilder()
                .connectTimeout(settings.attemptTimeout())
                .followRedirects(HttpClient.Redirect.NORMAL)
                .build();
        this.retry = Retry.of("bcrp", RetryConfig.custom()
                .maxAttempts(settings.maxAttempts())
                .waitDuration(settings.retryWait())
                .retryExceptions(IOException.class, TimeoutException.class, BcrpUnavailableException.class)
                .failAfterMaxAttempts(false)
                .build());
    }

    /**
     * @return the publications BCRP lists in {@code [from, to]} and the listed days without one
     * @throws BcrpUnavailableException when no attempt gave a usable answer
     */
    public BcrpFetch fetch(Moneda moneda, LocalDate from, LocalDate to) {
        if (to.isBefore(from)) {
            throw new IllegalArgumentException("empty range " + from + ".." + to);
        }
        URI uri = URI.create(settings.baseUrl() + "/" + moneda.seriesPath() + "/json/" + from + "/" + to + "/esp");
        BcrpResponseParser.Result result;
        try {
            result = retry.executeCheckedSupplier(() -> attempt(uri, moneda));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BcrpUnavailableException("interrupted while asking BCRP", e);
        } catch (Throwable e) {
            throw new BcrpUnavailableException("BCRP did not answer " + moneda + " " + from + ".." + to
                    + " after " + settings.maxAttempts() + " attempts: " + describe(e), e);
        }
        // BCRP answers the range asked for; anything outside it is ignored rather than trusted.
        List<ExchangeRate> publications = result.publications().stream()
                .filter(p -> !p.fecha().isBefore(from) && !p.fecha().isAfter(to))
                .toList();
        Set<LocalDate> withoutValue = result.listedWithoutValue().stream()
                .filter(d -> !d.isBefore(from) && !d.isAfter(to))
                .collect(Collectors.toSet());
        return new BcrpFetch(moneda, from, to, publications, withoutValue);
    }

    private BcrpResponseParser.Result attempt(URI uri, Moneda moneda) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(uri)
                .timeout(settings.attemptTimeout())
                .header("Accept", "application/json")
                .header("User-Agent", "Quipu")
                .GET()
                .build();
        CompletableFuture<HttpResponse<String>> pending = http.sendAsync(request, HttpResponse.BodyHandlers.ofString());
        HttpResponse<String> response;
        try {
            // The request timeout covers only the wait for headers; this bounds the whole exchange.
            response = pending.get(settings.attemptTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            pending.cancel(true);
            LOG.debug("BCRP attempt timed out: {}", uri.getPath());
            throw e;
        } catch (ExecutionException e) {
            LOG.debug("BCRP attempt failed: {}: {}", uri.getPath(), e.getCause().toString());
            throw e.getCause() instanceof Exception cause ? cause : e;
        } catch (InterruptedException e) {
            pending.cancel(true);
            throw e;
        }
        if (response.statusCode() / 100 != 2) {
            LOG.debug("BCRP attempt answered HTTP {}: {}", response.statusCode(), uri.getPath());
            throw new BcrpUnavailableException("BCRP answered HTTP " + response.statusCode());
        }
        // Captured at the moment of the answer; microseconds, as the database keeps them.
        Instant capturedAt = clock.instant().truncatedTo(ChronoUnit.MICROS);
        return parser.parse(response.body(), moneda, capturedAt);
    }

    private static String describe(Throwable e) {
        String message = e.getMessage();
        return e.getClass().getSimpleName() + (message == null ? "" : " (" + message + ")");
    }

    @Override
    public void close() {
        http.close();
    }
}
