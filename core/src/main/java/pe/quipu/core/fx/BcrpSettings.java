package pe.quipu.core.fx;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;

import java.time.Duration;
import java.time.LocalDate;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The {@code bcrp:} section of config.yml: how Quipu talks to BCRP's statistics API, for BCRP's own series and SBS's
 * (the API's on-demand fetches and capture, the ETL's {@code tipo-cambio} job), and the API's in-process capture of
 * both.
 */
public final class BcrpSettings {

    public static final String DEFAULT_BASE_URL = "https://estadisticas.bcrp.gob.pe/estadisticas/series/api";

    @NotNull
    @JsonProperty
    private String baseUrl = DEFAULT_BASE_URL;
    /** The limit of each HTTP attempt, connection to last byte. */
    @NotNull
    @JsonProperty
    private io.dropwizard.util.Duration attemptTimeout = io.dropwizard.util.Duration.milliseconds(1400);
    /** Attempts in all, the first one included. */
    @Min(1)
    @Max(5)
    @JsonProperty
    private int maxAttempts = 3;
    /** The pause between attempts. */
    @NotNull
    @JsonProperty
    private io.dropwizard.util.Duration retryWait = io.dropwizard.util.Duration.milliseconds(200);
    /** The API's capture of the latest rates, in Lima business hours. */
    @NotNull
    @JsonProperty
    private io.dropwizard.util.Duration captureInterval = io.dropwizard.util.Duration.minutes(30);
    @JsonProperty
    private boolean captureEnabled = true;
    /**
     * The first day of each currency's series at BCRP. A date before it is answered 404 without asking BCRP, and no
     * request asks for days before it. A currency left out has no such bound.
     */
    @NotNull
    @JsonProperty
    private Map<Moneda, LocalDate> seriesStart = defaultSeriesStart();
    /**
     * The first day of SBS's USD series (PD04639PD/PD04640PD), which BCRP's API also serves; null for no bound. The
     * default, the day the sol replaced the inti, is deliberately early, as the euro's is: a rate in soles cannot be
     * older, and a start later than the real one would answer 404 for real rates.
     */
    @JsonProperty
    private LocalDate sbsSeriesStart = DEFAULT_SBS_SERIES_START;

    public static final LocalDate DEFAULT_SBS_SERIES_START = LocalDate.of(1991, 7, 1);
    /**
     * How long BCRP's answer that nothing was published on or before a date is trusted: within it, that date and
     * any earlier one are 404 without asking again.
     */
    @NotNull
    @JsonProperty
    private io.dropwizard.util.Duration emptyAnswerMemory = io.dropwizard.util.Duration.hours(24);

    public BcrpSettings() {
    }

    /** Settings for a client only (tests, tools); the capture keeps its defaults. */
    public BcrpSettings(String baseUrl, Duration attemptTimeout, int maxAttempts, Duration retryWait) {
        this.baseUrl = Objects.requireNonNull(baseUrl, "baseUrl");
        this.attemptTimeout = io.dropwizard.util.Duration.milliseconds(attemptTimeout.toMillis());
        this.maxAttempts = maxAttempts;
        this.retryWait = io.dropwizard.util.Duration.milliseconds(retryWait.toMillis());
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be at least 1");
        }
        if (!isAttemptTimeoutPositive()) {
            throw new IllegalArgumentException("attemptTimeout must be positive");
        }
    }

    /** Without the trailing slash, which would double the separator in every URL. */
    public String baseUrl() {
        return baseUrl.strip().replaceAll("/+$", "");
    }

    public Duration attemptTimeout() {
        return attemptTimeout.toJavaDuration();
    }

    public int maxAttempts() {
        return maxAttempts;
    }

    public Duration retryWait() {
        return retryWait.toJavaDuration();
    }

    public Duration captureInterval() {
        return captureInterval.toJavaDuration();
    }

    public boolean captureEnabled() {
        return captureEnabled;
    }

    /** The first day of the currency's series at BCRP, when one is configured. */
    public Optional<LocalDate> seriesStart(Moneda moneda) {
        return Optional.ofNullable(seriesStart.get(moneda));
    }

    /** The first day of SBS's USD series, when one is configured. */
    public Optional<LocalDate> sbsSeriesStart() {
        return Optional.ofNullable(sbsSeriesStart);
    }

    /** Every configured series start, by currency. */
    public Map<Moneda, LocalDate> seriesStarts() {
        return Map.copyOf(seriesStart);
    }

    public Duration emptyAnswerMemory() {
        return emptyAnswerMemory.toJavaDuration();
    }

    /**
     * BCRP's catalogue publishes the interbank USD series (PD04637PD, PD04638PD) from 2 January 1997. The euro
     * series (PD04647PD, PD04648PD) cannot start before the euro's first trading day, 4 January 1999; a later real
     * start costs at most one request per {@link #emptyAnswerMemory()}.
     */
    public static Map<Moneda, LocalDate> defaultSeriesStart() {
        Map<Moneda, LocalDate> starts = new EnumMap<>(Moneda.class);
        starts.put(Moneda.USD, LocalDate.of(1997, 1, 2));
        starts.put(Moneda.EUR, LocalDate.of(1999, 1, 4));
        return starts;
    }

    /** The longest a fetch can take: every attempt timing out, with the waits between them. */
    public Duration worstCase() {
        return attemptTimeout().multipliedBy(maxAttempts).plus(retryWait().multipliedBy(maxAttempts - 1L));
    }

    @AssertTrue(message = "attemptTimeout must be positive")
    @JsonIgnore
    public boolean isAttemptTimeoutPositive() {
        return attemptTimeout != null && attemptTimeout.toMilliseconds() > 0;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof BcrpSettings other && baseUrl().equals(other.baseUrl())
                && attemptTimeout().equals(other.attemptTimeout()) && maxAttempts == other.maxAttempts
                && retryWait().equals(other.retryWait()) && captureInterval().equals(other.captureInterval())
                && captureEnabled == other.captureEnabled && seriesStart.equals(other.seriesStart)
                && Objects.equals(sbsSeriesStart, other.sbsSeriesStart)
                && emptyAnswerMemory().equals(other.emptyAnswerMemory());
    }

    @Override
    public int hashCode() {
        return Objects.hash(baseUrl(), attemptTimeout(), maxAttempts, retryWait(), captureInterval(), captureEnabled,
                seriesStart, sbsSeriesStart, emptyAnswerMemory());
    }

    @Override
    public String toString() {
        return "BcrpSettings[baseUrl=" + baseUrl() + ", attemptTimeout=" + attemptTimeout + ", maxAttempts="
                + maxAttempts + ", retryWait=" + retryWait + ", captureInterval=" + captureInterval
                + ", captureEnabled=" + captureEnabled + ", seriesStart=" + seriesStart + ", sbsSeriesStart="
                + sbsSeriesStart + ", emptyAnswerMemory="
                + emptyAnswerMemory + "]";
    }
}
