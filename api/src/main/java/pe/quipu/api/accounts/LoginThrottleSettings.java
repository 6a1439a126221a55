package pe.quipu.api.accounts;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;

/**
 * Login throttling, per instance ({@link LoginThrottle}): failed logins per email and client address, attempts per
 * client address (IPv6: per /64), and a ceiling of failed logins per email that spares the addresses the account
 * logged in from within {@code usualAddressWindow}.
 */
public final class LoginThrottleSettings {
    @Min(1)
    @JsonProperty
    private int failuresPerEmailAndAddress = 5;
    @NotNull
    @JsonProperty
    private Duration emailAndAddressPeriod = Duration.minutes(15);
    @Min(1)
    @JsonProperty
    private int attemptsPerAddress = 30;
    @NotNull
    @JsonProperty
    private Duration addressPeriod = Duration.minutes(1);
    @Min(1)
    @JsonProperty
    private int failuresPerEmail = 20;
    @NotNull
    @JsonProperty
    private Duration emailPeriod = Duration.hours(1);
    @NotNull
    @JsonProperty
    private Duration usualAddressWindow = Duration.days(90);

    public int getFailuresPerEmailAndAddress() {
        return failuresPerEmailAndAddress;
    }

    public Duration getEmailAndAddressPeriod() {
        return emailAndAddressPeriod;
    }

    public int getAttemptsPerAddress() {
        return attemptsPerAddress;
    }

    public Duration getAddressPeriod() {
        return addressPeriod;
    }

    public int getFailuresPerEmail() {
        return failuresPerEmail;
    }

    public Duration getEmailPeriod() {
        return emailPeriod;
    }

    public Duration getUsualAddressWindow() {
        return usualAddressWindow;
    }

    /** The throttle these settings describe, on {@code clock}. */
    public LoginThrottle throttle(java.time.Clock clock) {
        return new LoginThrottle(
                new LoginThrottle.Limit(failuresPerEmailAndAddress, emailAndAddressPeriod.toJavaDuration()),
                new LoginThrottle.Limit(attemptsPerAddress, addressPeriod.toJavaDuration()),
                new LoginThrottle.Limit(failuresPerEmail, emailPeriod.toJavaDuration()),
                clock);
    }
}
