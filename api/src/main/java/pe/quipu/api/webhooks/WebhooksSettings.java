package pe.quipu.api.webhooks;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;

import java.util.List;

/** The {@code webhooks:} section of config.yml (contract §6; README, "Receive webhooks"). */
public final class WebhooksSettings {

    /** {@code http://} URLs; unset, on in development and off in production. Never on in production. */
    @JsonProperty
    private Boolean allowHttp;

    /** Lifts the address-range rule, so tests and local demos can deliver to 127.0.0.1. Never in production. */
    @JsonProperty
    private boolean allowPrivateNetworks;

    /** One delay per attempt: the first from the event, each next one from the failure before it. */
    @NotEmpty
    @Size(max = 50)
    @JsonProperty
    private List<@NotNull Duration> retrySchedule = List.of(Duration.seconds(0), Duration.minutes(1),
            Duration.minutes(5), Duration.minutes(30), Duration.hours(2), Duration.hours(6), Duration.hours(24),
            Duration.hours(48));

    /** The whole attempt: connect, send, response. */
    @NotNull
    @JsonProperty
    private Duration timeout = Duration.seconds(10);

    /** false: this instance delivers nothing (run {@code ./quipu deliver config.yml} elsewhere). */
    @JsonProperty
    private boolean workerEnabled = true;

    /** An endpoint whose deliveries have failed this long with no success in between is set inactive. */
    @NotNull
    @JsonProperty
    private Duration disableAfter = Duration.days(5);

    /** Delivery records and their attempts are deleted this long after the delivery was created. */
    @NotNull
    @JsonProperty
    private Duration retention = Duration.days(30);

    /** Endpoint operations (create, update, delete, rotate, test, retry) per account (429 beyond it). */
    @jakarta.validation.Valid
    @NotNull
    @JsonProperty
    private pe.quipu.api.throttle.ThrottleSettings operationThrottle =
            new pe.quipu.api.throttle.ThrottleSettings(60, Duration.hours(1));

    public pe.quipu.api.throttle.ThrottleSettings getOperationThrottle() {
        return operationThrottle;
    }

    /** How long a rotated secret keeps signing beside the new one. */
    @NotNull
    @JsonProperty
    private Duration rotationGrace = Duration.hours(24);

    /** Attempts in flight at once on one instance, over all endpoints. */
    @Min(1)
    @Max(10_000)
    @JsonProperty
    private int concurrency = 256;

    /** Attempts in flight at once to one endpoint, on one instance: a slow endpoint holds no more than this. */
    @Min(1)
    @Max(1_000)
    @JsonProperty
    private int perEndpointConcurrency = 8;

    /** How often the worker looks for due deliveries when no notification woke it (retries fall due this way). */
    @NotNull
    @JsonProperty
    private Duration pollInterval = Duration.milliseconds(250);

    /** How often auto-disable, the plan's endpoint cap and the retention are applied. */
    @NotNull
    @JsonProperty
    private Duration maintenanceInterval = Duration.minutes(1);

    public boolean allowHttp(boolean production) {
        return allowHttp == null ? !production : allowHttp;
    }

    /** Whether an explicit setting contradicts production (checked by the configuration at start). */
    public boolean unsafeFor(boolean production) {
        return production && (Boolean.TRUE.equals(allowHttp) || allowPrivateNetworks);
    }

    public boolean isAllowPrivateNetworks() {
        return allowPrivateNetworks;
    }

    /** What these settings let through in development that production refuses, for the start's warning. */
    public List<String> developmentRelaxations() {
        List<String> relaxed = new java.util.ArrayList<>();
        if (allowHttp(false)) {
            relaxed.add("webhook URLs may be plain http:// (webhooks.allowHttp unset or true)");
        }
        if (allowPrivateNetworks) {
            relaxed.add("webhooks may go to loopback and private addresses (webhooks.allowPrivateNetworks,"
                    + " QUIPU_WEBHOOKS_ALLOW_PRIVATE_NETWORKS)");
        }
        return relaxed;
    }

    public List<java.time.Duration> retrySchedule() {
        return retrySchedule.stream().map(Duration::toJavaDuration).toList();
    }

    public java.time.Duration timeout() {
        return timeout.toJavaDuration();
    }

    public boolean isWorkerEnabled() {
        return workerEnabled;
    }

    public java.time.Duration disableAfter() {
        return disableAfter.toJavaDuration();
    }

    public java.time.Duration retention() {
        return retention.toJavaDuration();
    }

    public java.time.Duration rotationGrace() {
        return rotationGrace.toJavaDuration();
    }

    public int getConcurrency() {
        return concurrency;
    }

    public int getPerEndpointConcurrency() {
        return perEndpointConcurrency;
    }

    public java.time.Duration pollInterval() {
        return pollInterval.toJavaDuration();
    }

    public java.time.Duration maintenanceInterval() {
        return maintenanceInterval.toJavaDuration();
    }
}
