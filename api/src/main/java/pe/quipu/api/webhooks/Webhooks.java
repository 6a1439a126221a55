package pe.quipu.api.webhooks;

import io.dropwizard.core.setup.Environment;
import pe.quipu.api.domain.Text;
import pe.quipu.api.http.JsonBody;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import pe.quipu.api.platform.Periodic;
import pe.quipu.api.plans.AccountLimitsCache;
import pe.quipu.api.platform.Platform;

import java.net.InetAddress;
import java.util.List;

/**
 * The webhooks feature assembled: the endpoints API, and the delivery worker with its maintenance, which the API runs
 * unless {@code webhooks.workerEnabled} is false there (then {@code deliver} runs it elsewhere: {@link #delivering}).
 * The worker wakes on new events and deliveries, and looks every {@code pollInterval}.
 */
public final class Webhooks {

    private final Platform platform;
    private final WebhooksSettings settings;
    private final AccountLimitsCache limits;
    private final AddressRules rules;
    private final DeliveryStore store;
    private final WebhookEndpoints endpoints;

    /**
     * @param resolver how the host of a new URL is resolved (production: the system's resolver; tests: their own)
     */
    public Webhooks(Platform platform, WebhooksSettings settings, boolean production, AccountLimitsCache limits,
                    HostResolver resolver) {
        this.platform = platform;
        this.settings = settings;
        this.limits = limits;
        this.rules = new AddressRules(settings.isAllowPrivateNetworks());
        this.store = new DeliveryStore(platform.jdbi(), platform.json());
        this.endpoints = new WebhookEndpoints(platform.jdbi(), platform.clock(),
                new WebhookUrls(settings.allowHttp(production), rules,
                        new BoundedResolver(resolver::resolve, BoundedResolver.TIMEOUT)), limits, platform.outbox(),
                store, platform.audit(), settings.rotationGrace());
        // Any instance reports the backlog, whether or not it delivers: it is the database's.
        GaugeWithCallback.builder().name("quipu_webhook_deliveries_pending")
                .help("Webhook deliveries waiting for an attempt (pending or retrying), all workers together")
                .callback(gauge -> gauge.call(store.pendingCount())).register(platform.prometheus());
    }

    /** Resolves a host name to its addresses (the system's resolver: {@link #SYSTEM}). */
    @FunctionalInterface
    public interface HostResolver {
        HostResolver SYSTEM = host -> List.of(InetAddress.getAllByName(host));

        List<InetAddress> resolve(String host) throws java.net.UnknownHostException;
    }

    /** The API's parts: the endpoints API, and the delivery worker unless it runs elsewhere. Returns this. */
    public Webhooks serving(Environment environment) {
        environment.jersey().register(new WebhooksResource(endpoints, new JsonBody(platform.json()),
                settings.getOperationThrottle().throttle(Text.of("webhooks.throttle.operations"), platform.clock())));
        if (settings.isWorkerEnabled()) {
            delivering();
        }
        return this;
    }

    /**
     * The delivery worker and its maintenance timer, woken by the platform's notifications and managed by it. The
     * worker's meters ({@code …DeliveryWorker.attempts.succeeded}, {@code .failed}, {@code .inFlight}) go to the
     * platform's metrics. Returns this.
     */
    public Webhooks delivering() {
        DeliveryWorker worker = new DeliveryWorker(store, rules, platform.clock(), settings, platform.metrics(),
                platform.prometheus());
        platform.notifications().on(DeliveryWorker.CHANNEL, payload -> worker.wake(), worker::wake);
        WebhookMaintenance maintenance = new WebhookMaintenance(platform.jdbi(), platform.clock(), limits,
                platform.audit(), settings);
        platform.manage(worker);
        platform.manage(Periodic.every("quipu-webhook-maintenance", settings.maintenanceInterval(),
                settings.maintenanceInterval(), maintenance::run));
        return this;
    }
}
