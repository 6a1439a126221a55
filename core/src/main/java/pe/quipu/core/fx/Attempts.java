package pe.quipu.core.fx;

import io.github.resilience4j.core.functions.CheckedSupplier;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * How Quipu asks a source of rates: each HTTP exchange bounded by {@code attemptTimeout} from connection to last byte,
 * and failed attempts (I/O errors, timeouts, non-2xx, a body that is not the source's format) retried with
 * resilience4j-retry up to {@code maxAttempts}, {@code retryWait} apart. Shared by the BCRP and SUNAT clients.
 */
final class Attempts implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Attempts.class);

    private final String upstream;
    private final Duration attemptTimeout;
    private final int maxAttempts;
    private final HttpClient http;
    private final Retry retry;

    /** @param upstream who is asked, for messages: "BCRP", "SUNAT" */
    Attempts(String upstream, Duration attemptTimeout, int maxAttempts, Duration retryWait) {
        this.upstream = upstream;
        this.attemptTimeout = attemptTimeout;
        this.maxAttempts = maxAttempts;
        this.http = HttpClient.newBuilder()
                .connectTimeout(attemptTimeout)
                .followRedirects(HttpClient.Redirect.NORMAL)
                .build();
        this.retry = Retry.of(upstream.toLowerCase(java.util.Locale.ROOT), RetryConfig.custom()
                .maxAttempts(maxAttempts)
                .waitDuration(retryWait)
                .retryExceptions(IOException.class, TimeoutException.class, RatesUnavailableException.class)
                .failAfterMaxAttempts(false)
                .build());
    }

    /**
     * Runs {@code attempt} until it succeeds or the attempts are spent.
     *
     * @param what what is asked for, for the message: "USD 2026-09-01..2026-09-30"
     * @throws RatesUnavailableException when no attempt succeeded
     */
    <T> T retried(String what, CheckedSupplier<T> attempt) {
        try {
            return retry.executeCheckedSupplier(attempt);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RatesUnavailableException("interrupted while asking " + upstream, e);
        } catch (Throwable e) {
            throw new RatesUnavailableException(upstream + " did not answer " + what + " after " + maxAttempts
                    + " attempts: " + describe(e), e);
        }
    }

    /**
     * One exchange, bounded as a whole (the request's own timeout covers only the wait for headers).
     *
     * @throws RatesUnavailableException for a status other than 2xx
     */
    HttpResponse<String> exchange(HttpRequest request) throws Exception {
        CompletableFuture<HttpResponse<String>> pending = http.sendAsync(request, HttpResponse.BodyHandlers.ofString());
        HttpResponse<String> response;
        try {
            response = pending.get(attemptTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            pending.cancel(true);
            LOG.debug("{} attempt timed out: {}", upstream, request.uri().getPath());
            throw e;
        } catch (ExecutionException e) {
            LOG.debug("{} attempt failed: {}: {}", upstream, request.uri().getPath(), e.getCause().toString());
            throw e.getCause() instanceof Exception cause ? cause : e;
        } catch (InterruptedException e) {
            pending.cancel(true);
            throw e;
        }
        if (response.statusCode() / 100 != 2) {
            LOG.debug("{} attempt answered HTTP {}: {}", upstream, response.statusCode(), request.uri().getPath());
            throw new RatesUnavailableException(upstream + " answered HTTP " + response.statusCode());
        }
        return response;
    }

    Duration attemptTimeout() {
        return attemptTimeout;
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
