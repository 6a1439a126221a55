package pe.quipu.core.ruc;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.NotNull;

/**
 * The {@code changes:} section of config.yml (contract §11), read by the API and the ETL alike: how long the
 * registry's change log is kept (the API prunes it daily), and the share of the registry a load may remove before it
 * is refused as a broken file (the ETL's guard).
 */
public final class ChangesSettings {

    @NotNull
    @JsonProperty
    private Duration retention = Duration.days(400);

    @DecimalMin("0.0")
    @DecimalMax("1.0")
    @JsonProperty
    private double maxRemovedShare = 0.05;

    public java.time.Duration retention() {
        return retention.toJavaDuration();
    }

    public double maxRemovedShare() {
        return maxRemovedShare;
    }
}
