package pe.quipu.etl.source;

import io.github.resilience4j.core.IntervalFunction;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import pe.quipu.etl.run.Progress;
import pe.quipu.etl.run.ProgressLine;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.OptionalLong;

/**
 * Downloads the padrón (about 390 MB) to a file, resuming where an interrupted attempt stopped with a
 * {@code Range} request, and retrying (resilience4j) on I/O errors and server errors. A server that ignores
 * {@code Range} answers 200 and the file is written again from the start.
 *
 * <p>A file is at most {@code maxBytes} ({@code etl.maxDownloadBytes}): an answer whose {@code Content-Length} says
 * more is refused before its body is read, and a transfer that goes past it (without a length, or lying about it)
 * stops there. Either is {@link TooLarge}, never retried.
 */
public final class Download {

    private static final Logger LOG = LoggerFactory.getLogger(Download.class);

    private final HttpClient http;
    private final Retry retry;
    private final long maxBytes;

    public Download(HttpClient http, int maxAttempts, Duration firstWait, long maxBytes) {
        this.http = http;
        this.maxBytes = maxBytes;
        this.retry = Retry.of("padron-download", RetryConfig.custom()
                .maxAttempts(maxAttempts)
                .intervalFunction(IntervalFunction.ofExponentialBackoff(firstWait, 2.0))
                .retryOnException(e -> e instanceof IOException || e instanceof UncheckedIOException
                        || e instanceof ServerError)
                .build());
    }

    /**
     * The default for cron runs: 6 attempts, waiting 5 s, 10 s, 20 s… between them. Redirects are followed, except
     * from https to http.
     */
    public static Download standard(long maxBytes) {
        return new Download(HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NORMAL)
                .connectTimeout(Duration.ofSeconds(30)).build(), 6, Duration.ofSeconds(5), maxBytes);
    }

    public void fetch(URI url, Path target) throws Exception {
        fetch(url, target, Progress.none());
    }

    /** {@link #fetch(URI, Path)}, telling {@code progress} of the bytes on disk and of the size the server gives. */
    public void fetch(URI url, Path target, Progress progress) throws Exception {
        retry.executeCallable(() -> {
            attempt(url, target, progress);
            return null;
        });
    }

    private void attempt(URI url, Path target, Progress progress) throws IOException, InterruptedException {
        long have = Files.exists(target) ? Files.size(target) : 0;
        HttpRequest.Builder request = HttpRequest.newBuilder(url).GET().timeout(Duration.ofMinutes(2));
        if (have > 0) {
            request.header("Range", "bytes=" + have + "-");
        }
        HttpResponse<InputStream> response = http.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
        int status = response.statusCode();
        try (InputStream body = response.body()) {
            if (status == 416 && have > 0) {
                return; // nothing left past what we have
            }
            if (status >= 500) {
                throw new ServerError(url + " answered " + status);
            }
            if (status != 200 && status != 206) {
                // Not retried: a missing file or a refused request does not heal by asking again.
                throw new IllegalStateException(url + " answered " + status);
            }
            boolean resume = status == 206;
            long written = resume ? have : 0;
            OptionalLong length = response.headers().firstValueAsLong("Content-Length");
            if (length.isPresent() && written + length.getAsLong() > maxBytes) {
                throw new TooLarge(url + " announces " + (written + length.getAsLong()) + " bytes, over"
                        + " etl.maxDownloadBytes (" + maxBytes + " bytes); nothing was downloaded");
            }
            LOG.info("downloading {} ({})", url, resume ? "resuming at byte " + have : "from the start");
            progress.totalBytes(length.isPresent() ? written + length.getAsLong() : ProgressLine.NONE);
            progress.bytes(written);
            try (OutputStream out = Files.newOutputStream(target, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    resume ? StandardOpenOption.APPEND : StandardOpenOption.TRUNCATE_EXISTING)) {
                byte[] chunk = new byte[1 << 16];
                for (int n = body.read(chunk); n >= 0; n = body.read(chunk)) {
                    if (written + n > maxBytes) {
                        // Closing the body on the way out drops the connection: the server sends no more.
                        throw new TooLarge("the download from " + url + " went past etl.maxDownloadBytes ("
                                + maxBytes + " bytes) and was stopped there");
                    }
                    out.write(chunk, 0, n);
                    written += n;
                    progress.bytes(written);
                }
            }
        }
    }

    /** A file larger than {@code etl.maxDownloadBytes}: the run fails, and asking again would not help. */
    public static final class TooLarge extends IllegalStateException {
        TooLarge(String message) {
            super(message);
        }
    }

    /** A 5xx answer: worth another attempt. */
    static final class ServerError extends RuntimeException {
        ServerError(String message) {
            super(message);
        }
    }
}
