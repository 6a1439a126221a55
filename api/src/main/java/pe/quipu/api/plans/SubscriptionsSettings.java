package pe.quipu.api.plans;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MinDuration;
import jakarta.validation.constraints.NotNull;

import java.util.concurrent.TimeUnit;

/** The {@code subscriptions:} section of config.yml: renewals and cancellations that fall due with time (contract §2). */
public final class SubscriptionsSettings {
    /** How often each instance applies the due ones; several instances may run it at once. */
    @NotNull
    @MinDuration(value = 1, unit = TimeUnit.SECONDS)
    @JsonProperty
    private Duration applyInterval = Duration.minutes(1);

    public Duration getApplyInterval() {
        return applyInterval;
    }
}
