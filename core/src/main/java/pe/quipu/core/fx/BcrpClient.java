package pe.quipu.core.fx;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Fetches one series' rates for a date range from BCRP's statistics API: BCRP's own interbank USD and EUR series,
 * and SBS's banking-system USD series, which BCRP republishes (contract §12). Each HTTP attempt is bounded by
 * {@code attemptTimeout} (connection to last byte); failed attempts (I/O errors, timeouts, non-2xx, a body that is
 * not BCRP's JSON) are retried up to {@code maxAttempts}, {@code retryWait} apart. So a fetch takes at most
 * {@link BcrpSettings#worstCase()} (3 × 1.4 s + 2 × 0.2 s = 4.6 s by default), which keeps an on-demand request
 * under 5 s.
 */
public final class BcrpClient implements RateSource, AutoCloseable {

    private final BcrpSettings settings;
    private final Clock clock;
    private final BcrpResponseParser parser;
    private final Attempts attempts;

    public BcrpClient(BcrpSettings settings, Clock clock) {
        this.settings = settings;
        this.clock = clock;
        this.parser = new BcrpResponseParser();
        this.attempts = new Attempts("BCRP", settings.attemptTimeout(), settings.maxAttempts(), settings.retryWait());
    }

    /**
     * The codes of a series' compra and venta as BCRP's URL takes them; the response's {@code values} come in this
     * order. BCRP: interbank PD04637PD/PD04638PD (USD), PD04647PD/PD04648PD (EUR); SBS: PD04639PD/PD04640PD (USD).
     *
     * @throws IllegalArgumentException for a series BCRP's API does not serve (SUNAT's)
     */
    public static String seriesPath(RateSeries series) {
        return switch (series.fuente()) {
            case BCRP -> series.moneda() == Moneda.USD ? "PD04637PD-PD04638PD" : "PD04647PD-PD04648PD";
            case SBS -> "PD04639PD-PD04640PD";
            case SUNAT -> throw new IllegalArgumentException("SUNAT's rates are not in BCRP's API");
        };
    }

    /**
     * @return the publications BCRP lists in {@code [from, to]} and the listed days without one
     * @throws RatesUnavailableException when no attempt gave a usable answer
     */
    @Override
    public RateFetch fetch(RateSeries series, LocalDate from, LocalDate to) {
        if (to.isBefore(from)) {
            throw new IllegalArgumentException("empty range " + from + ".." + to);
        }
        URI uri = URI.create(settings.baseUrl() + "/" + seriesPath(series) + "/json/" + from + "/" + to + "/esp");
        BcrpResponseParser.Result result = attempts.retried(series + " " + from + ".." + to,
                () -> attempt(uri, series));
        // BCRP answers the range asked for; anything outside it is ignored rather than trusted.
        List<ExchangeRate> publications = result.publications().stream()
                .filter(p -> !p.fecha().isBefore(from) && !p.fecha().isAfter(to))
                .toList();
        Set<LocalDate> withoutValue = result.listedWithoutValue().stream()
                .filter(d -> !d.isBefore(from) && !d.isAfter(to))
                .collect(Collectors.toSet());
        return new RateFetch(series, from, to, publications, withoutValue);
    }

    private BcrpResponseParser.Result attempt(URI uri, RateSeries series) throws Exception {
        HttpResponse<String> response = attempts.exchange(HttpRequest.newBuilder(uri)
                .timeout(settings.attemptTimeout())
                .header("Accept", "application/json")
                .header("User-Agent", "Quipu")
                .GET()
                .build());
        // Captured at the moment of the answer; microseconds, as the database keeps them.
        Instant capturedAt = clock.instant().truncatedTo(ChronoUnit.MICROS);
        return parser.parse(response.body(), series, capturedAt);
    }

    @Override
    public void close() {
        attempts.close();
    }
}
