package pe.quipu.api.webhooks;

import com.codahale.metrics.MetricRegistry;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.jdbi.v3.core.Jdbi;
import pe.quipu.api.audit.AuditLog;
import pe.quipu.api.db.NotificationListener;
import pe.quipu.api.lifecycle.Periodic;
import pe.quipu.api.plans.AccountLimitsCache;
import pe.quipu.core.events.EventOutbox;

import io.dropwizard.lifecycle.Managed;

import java.net.InetAddress;
import java.time.Clock;
import java.util.List;

/** The webhooks feature assembled: the endpoints API, and the delivery worker with its maintenance. */
public final class Webhooks {

    private final Jdbi jdbi;
    private final Clock clock;
    private final WebhooksSettings settings;
    private final AccountLimitsCache limits;
    private final AuditLog audit;
    private final AddressRules rules;
    private final DeliveryStore store;
    private final WebhookEndpoints endpoints;

    /**
     * @param resolver how the host of a new URL is resolved (production: the system's resolver; tests: their own)
     */
    public Webhooks(Jdbi jdbi, ObjectMapper json, Clock clock, WebhooksSettings settings, boolean production,
                    AccountLimitsCache limits, EventOutbox outbox, AuditLog audit, HostResolver resolver) {
        this.jdbi = jdbi;
        this.clock = clock;
        this.settings = settings;
        this.limits = limits;
        this.audit = audit;
        this.rules = new AddressRules(settings.isAllowPrivateNetworks());
        this.store = new DeliveryStore(jdbi, json);
        this.endpoints = new WebhookEndpoints(jdbi, clock,
                new WebhookUrls(settings.allowHttp(production), rules,
                        new BoundedResolver(resolver::resolve, BoundedResolver.TIMEOUT)), limits, outbox, store,
                audit, settings.rotationGrace());
    }

    /** Resolves a host name to its addresses (the system's resolver: {@link #SYSTEM}). */
    @FunctionalInterface
    public interface HostResolver {
        HostResolver SYSTEM = host -> List.of(InetAddress.getAllByName(host));

        List<InetAddress> resolve(String host) throws java.net.UnknownHostException;
    }

    /** The endpoints API's service, for {@link WebhooksResource}. */
    public WebhookEndpoints endpoints() {
        return endpoints;
    }

    /**
     * The delivery worker and its maintenance timer, woken by {@code notifications}; manage them in this order after
     * the listener. The worker's meters ({@code …DeliveryWorker.attempts.succeeded}, {@code .failed}, {@code .inFlight})
     * go to {@code metrics}.
     */
    public List<Managed> delivery(NotificationListener notifications, MetricRegistry metrics) {
        DeliveryWorker worker = new DeliveryWorker(store, rules, clock, settings, metrics);
        notifications.on(DeliveryWorker.CHANNEL, payload -> worker.wake(), worker::wake);
        WebhookMaintenance maintenance = new WebhookMaintenance(jdbi, clock, limits, audit, settings);
        return List.of(worker, Periodic.every("quipu-webhook-maintenance", settings.maintenanceInterval(),
                settings.maintenanceInterval(), maintenance::run));
    }
}
