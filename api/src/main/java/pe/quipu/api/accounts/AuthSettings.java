package pe.quipu.api.accounts;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import jakarta.validation.Valid;
import pe.quipu.api.throttle.ThrottleSettings;
import jakarta.validation.constraints.NotNull;

import java.util.List;
import java.util.Objects;

/** The {@code auth:} section of config.yml: accounts and sessions (contract §2). */
public final class AuthSettings {
    @NotNull
    @JsonProperty
    private String issuer = "quipu";
    @NotNull
    @JsonProperty
    private Duration accessTokenLifetime = Duration.minutes(15);
    @NotNull
    @JsonProperty
    private Duration refreshTokenLifetime = Duration.days(30);
    /** JWT_SIGNING_KEY: a file holding the private EC P-256 key as a JWK. Required in production. */
    @JsonProperty
    private String signingKeyFile = "";
    /** Development only, when signingKeyFile is empty: generated on first start and kept here. */
    @NotNull
    @JsonProperty
    private String developmentSigningKeyFile = "./data/jwt-signing-key.json";
    @Valid
    @NotNull
    @JsonProperty
    private LoginThrottleSettings loginThrottle = new LoginThrottleSettings();
    /** Signups per client address (IPv6: per /64), on top of the login throttle's per-address allowance. */
    @Valid
    @NotNull
    @JsonProperty
    private ThrottleSettings signupThrottle = new ThrottleSettings(20, Duration.days(1));
    /** Email changes per account ({@code PATCH /v1/me}), those refused as taken included. */
    @Valid
    @NotNull
    @JsonProperty
    private ThrottleSettings emailChangeThrottle = new ThrottleSettings(10, Duration.hours(1));

    public String getIssuer() {
        return issuer;
    }

    public Duration getAccessTokenLifetime() {
        return accessTokenLifetime;
    }

    public Duration getRefreshTokenLifetime() {
        return refreshTokenLifetime;
    }

    /** Empty when unset. */
    public String getSigningKeyFile() {
        return Objects.requireNonNullElse(signingKeyFile, "");
    }

    public String getDevelopmentSigningKeyFile() {
        return developmentSigningKeyFile;
    }

    /** What these settings let through in development that production refuses, for the start's warning. */
    public List<String> developmentRelaxations() {
        return getSigningKeyFile().isBlank()
                ? List.of("access tokens are signed with a key generated into " + developmentSigningKeyFile
                        + " (JWT_SIGNING_KEY unset)")
                : List.of();
    }

    public LoginThrottleSettings getLoginThrottle() {
        return loginThrottle;
    }

    public ThrottleSettings getSignupThrottle() {
        return signupThrottle;
    }

    public ThrottleSettings getEmailChangeThrottle() {
        return emailChangeThrottle;
    }
}
