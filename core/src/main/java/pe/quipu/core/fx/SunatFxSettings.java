package pe.quipu.core.fx;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;

import java.time.Duration;
import java.time.LocalDate;
import java.util.Objects;

/**
 * The {@code sunatFx:} section of config.yml: how Quipu asks SUNAT for its exchange rates (contract §12), for the
 * API's on-demand fetches and capture and the ETL's {@code tipo-cambio --fuente sunat}. The same bounds as BCRP's:
 * a fetch answers within 5 s.
 */
public final class SunatFxSettings {

    public static final String DEFAULT_BASE_URL = "https://e-consulta.sunat.gob.pe";

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
    /** The API's capture of SUNAT's latest rates, in Lima business hours. */
    @NotNull
    @JsonProperty
    private io.dropwizard.util.Duration captureInterval = io.dropwizard.util.Duration.minutes(30);
    @JsonProperty
    private boolean captureEnabled = true;
    /**
     * The first day SUNAT is taken to publish: an earlier date is 404 without asking SUNAT, and from this day on a
     * month SUNAT answers with no rate at all is a failure, not a month without publications. Null: no bound.
     */
    @JsonProperty
    private LocalDate seriesStart = DEFAULT_SERIES_START;
    /** How long SUNAT's answer that nothing was published on or before a date is trusted. */
    @NotNull
    @JsonProperty
    private io.dropwizard.util.Duration emptyAnswerMemory = io.dropwizard.util.Duration.hours(24);

    /** docs/decisions.md, "Exchange-rate sources": a guess on the early side. */
    public static final LocalDate DEFAULT_SERIES_START = LocalDate.of(2000, 1, 1);

    public SunatFxSettings() {
    }

    /** Settings for a client only (tests, tools); the capture and the series start keep their defaults. */
    public SunatFxSettings(String baseUrl, Duration attemptTimeout, int maxAttempts, Duration retryWait) {
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

    /** Without the trailing slash, which would double the separator in the URL and change Origin and Referer. */
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

    /** The first day SUNAT is taken to publish; null for no bound. */
    public LocalDate seriesStart() {
        return seriesStart;
    }

    public Duration emptyAnswerMemory() {
        return emptyAnswerMemory.toJavaDuration();
    }

    /** The longest one month's fetch can take: every attempt timing out, with the waits between them. */
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
        return o instanceof SunatFxSettings other && baseUrl().equals(other.baseUrl())
                && attemptTimeout().equals(other.attemptTimeout()) && maxAttempts == other.maxAttempts
                && retryWait().equals(other.retryWait()) && captureInterval().equals(other.captureInterval())
                && captureEnabled == other.captureEnabled && Objects.equals(seriesStart, other.seriesStart)
                && emptyAnswerMemory().equals(other.emptyAnswerMemory());
    }

    @Override
    public int hashCode() {
        return Objects.hash(baseUrl(), attemptTimeout(), maxAttempts, retryWait(), captureInterval(), captureEnabled,
                seriesStart, emptyAnswerMemory());
    }

    @Override
    public String toString() {
        return "SunatFxSettings[baseUrl=" + baseUrl() + ", attemptTimeout=" + attemptTimeout + ", maxAttempts="
                + maxAttempts + ", retryWait=" + retryWait + ", captureInterval=" + captureInterval
                + ", captureEnabled=" + captureEnabled + ", seriesStart=" + seriesStart + ", emptyAnswerMemory="
                + emptyAnswerMemory + "]";
    }
}
