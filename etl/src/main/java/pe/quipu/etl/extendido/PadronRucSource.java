package pe.quipu.etl.extendido;

import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;

import java.io.BufferedInputStream;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

/**
 * Where a {@code padron-extendido} run reads from: a local file, the CSV itself or a zip holding it (told
 * apart by the zip signature, not the name), streamed without unpacking to disk; or a URL, downloaded to a
 * temporary file first (with retries) so that a dropped connection does not fail the load halfway.
 */
public final class PadronRucSource {

    private static final int ATTEMPTS = 3;

    private PadronRucSource() {
    }

    /** The CSV's lines, decoded as UTF-8 (malformed bytes replaced rather than failing the whole run). */
    public static BufferedReader open(Path file) throws IOException {
        InputStream in = new BufferedInputStream(Files.newInputStream(file), 1 << 16);
        try {
            in.mark(4);
            byte[] magic = in.readNBytes(4);
            in.reset();
            if (magic.length == 4 && magic[0] == 'P' && magic[1] == 'K' && magic[2] == 3 && magic[3] == 4) {
                ZipInputStream zip = new ZipInputStream(in);
                ZipEntry entry;
                while ((entry = zip.getNextEntry()) != null && entry.isDirectory()) {
                    // folders hold nothing to read
                }
                if (entry == null) {
                    throw new IOException("the zip " + file + " holds no file");
                }
                in = zip;
            }
            return new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPLACE)
                    .onUnmappableCharacter(CodingErrorAction.REPLACE)), 1 << 16);
        } catch (IOException | RuntimeException e) {
            in.close();
            throw e;
        }
    }

    /**
     * Downloads {@code url} into a temporary file; failed attempts (I/O errors, non-2xx answers) are retried
     * with resilience4j-retry. The caller deletes the file.
     */
    public static Path download(URI url, Duration retryWait) throws IOException {
        Path target = Files.createTempFile("quipu-padron-extendido-", ".download");
        Retry retry = Retry.of("padron-extendido-download", RetryConfig.custom()
                .maxAttempts(ATTEMPTS)
                .waitDuration(retryWait)
                .retryExceptions(IOException.class)
                .build());
        try (HttpClient http = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NORMAL)
                .connectTimeout(Duration.ofSeconds(30)).build()) {
            retry.executeCheckedSupplier(() -> {
                HttpResponse<InputStream> response = http.send(HttpRequest.newBuilder(url)
                        .header("User-Agent", "Quipu").GET().build(), HttpResponse.BodyHandlers.ofInputStream());
                try (InputStream body = response.body()) {
                    if (response.statusCode() / 100 != 2) {
                        throw new IOException(url + " answered HTTP " + response.statusCode());
                    }
                    Files.copy(body, target, StandardCopyOption.REPLACE_EXISTING);
                }
                return target;
            });
            return target;
        } catch (IOException e) {
            Files.deleteIfExists(target);
            throw e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            Files.deleteIfExists(target);
            throw new IOException("interrupted while downloading " + url, e);
        } catch (Throwable e) {
            Files.deleteIfExists(target);
            throw new IOException("could not download " + url + ": " + e.getMessage(), e);
        }
    }
}
