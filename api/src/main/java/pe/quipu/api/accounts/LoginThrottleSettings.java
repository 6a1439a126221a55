package pe.quipu.api.accounts;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;

/** Login throttling, per instance: failed logins per email, attempts per client address (IPv6: per /64). */
public final class LoginThrottleSettings {
    @Min(1)
    @JsonProperty
    private int failuresPerEmail = 5;
    @NotNull
    @JsonProperty
    private Duration emailPeriod = Duration.minutes(15);
    @Min(1)
    @JsonProperty
    private int attemptsPerAddress = 30;
    @NotNull
    @JsonProperty
    private Duration addressPeriod = Duration.minutes(1);

    public int getFailuresPerEmail() {
        return failuresPerEmail;
    }

    public Duration getEmailPeriod() {
        return emailPeriod;
    }

    public int getAttemptsPerAddress() {
        return attemptsPerAddress;
    }

    public Duration getAddressPeriod() {
        return addressPeriod;
    }
}
