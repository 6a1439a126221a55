package pe.quipu.etl.run;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.DataSize;
import io.dropwizard.util.DataSizeUnit;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MinDataSize;
import io.dropwizard.validation.MinDuration;
import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.NotNull;

import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/** The {@code etl:} section of config.yml, which the API ignores: the rules every load applies to its file. */
public final class EtlSettings {

    /** A run fails when more than this share of its lines is rejected (malformed, invalid RUC). */
    @DecimalMin("0")
    @DecimalMax("1")
    @JsonProperty
    private double maxRejectedShare = 0.001;
    /** A padrón with fewer records than this share of the registry in service is refused as truncated (0: off). */
    @DecimalMin("0")
    @DecimalMax("1")
    @JsonProperty
    private double minRetainedShare = 0.9;
    /** A {@code --url} download larger than this fails the run (SUNAT's padrón zip is about 390 MB). */
    @NotNull
    @MinDataSize(value = 1, unit = DataSizeUnit.BYTES)
    @JsonProperty
    private DataSize maxDownloadBytes = DataSize.gigabytes(4);
    /** {@code http://} for {@code --url}: unset, allowed in development and refused in production. */
    @JsonProperty
    private Boolean allowHttp;
    /** How often a run logs its progress (on a terminal, its line is redrawn every half second instead). */
    @NotNull
    @MinDuration(value = 1, unit = TimeUnit.MILLISECONDS)
    @JsonProperty
    private Duration progressEvery = Duration.seconds(10);

    public EtlSettings() {
    }

    public double maxRejectedShare() {
        return maxRejectedShare;
    }

    public double minRetainedShare() {
        return minRetainedShare;
    }

    public long maxDownloadBytes() {
        return maxDownloadBytes.toBytes();
    }

    /** Whether a plain {@code http://} URL may be downloaded: as set, else only outside production. */
    public boolean allowHttp(boolean production) {
        return allowHttp == null ? !production : allowHttp;
    }

    /** How often a run logs a progress line ({@code etl.progressEvery}, 10 s). */
    public java.time.Duration progressEvery() {
        return progressEvery.toJavaDuration();
    }

    /** Whether {@code allowHttp} was left unset, so that development alone allows http. */
    public boolean allowHttpUnset() {
        return allowHttp == null;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof EtlSettings other && Double.compare(maxRejectedShare, other.maxRejectedShare) == 0
                && Double.compare(minRetainedShare, other.minRetainedShare) == 0
                && maxDownloadBytes.equals(other.maxDownloadBytes) && Objects.equals(allowHttp, other.allowHttp)
                && progressEvery.equals(other.progressEvery);
    }

    @Override
    public int hashCode() {
        return Objects.hash(maxRejectedShare, minRetainedShare, maxDownloadBytes, allowHttp, progressEvery);
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "EtlSettings[maxRejectedShare=%s, minRetainedShare=%s, maxDownloadBytes=%s,"
                + " allowHttp=%s, progressEvery=%s]", maxRejectedShare, minRetainedShare, maxDownloadBytes, allowHttp,
                progressEvery);
    }
}
