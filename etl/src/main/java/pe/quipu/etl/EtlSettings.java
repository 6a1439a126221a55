package pe.quipu.etl;

import com.fasterxml.jackson.annotation.JsonProperty;
import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.DecimalMin;

import java.util.Locale;
import java.util.Objects;

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

    public EtlSettings() {
    }

    public double maxRejectedShare() {
        return maxRejectedShare;
    }

    public double minRetainedShare() {
        return minRetainedShare;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof EtlSettings other && Double.compare(maxRejectedShare, other.maxRejectedShare) == 0
                && Double.compare(minRetainedShare, other.minRetainedShare) == 0;
    }

    @Override
    public int hashCode() {
        return Objects.hash(maxRejectedShare, minRetainedShare);
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "EtlSettings[maxRejectedShare=%s, minRetainedShare=%s]", maxRejectedShare,
                minRetainedShare);
    }
}
