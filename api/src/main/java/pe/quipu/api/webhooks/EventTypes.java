package pe.quipu.api.webhooks;

import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/** The event names an endpoint may subscribe to (the spec's "Event names"). */
final class EventTypes {

    static final String ENDPOINT_TEST = "endpoint.test";
    static final Set<String> ACCOUNT = Set.of(ENDPOINT_TEST, "subscription.updated", "subscription.canceled",
            "usage.threshold_reached", "key.created", "key.revoked", "key.rotated", "ruc.changed");
    /** Operator-level events: only accounts with admin rights (grant-admin) may subscribe. */
    static final Set<String> ADMIN = Set.of("etl.run.started", "etl.run.succeeded", "etl.run.failed",
            "etl.run.canceled");
    /** Every name, sorted, for error messages. */
    static final List<String> ALL = Stream.concat(ACCOUNT.stream(), ADMIN.stream()).sorted().toList();

    private EventTypes() {
    }

    static boolean known(String type) {
        return ACCOUNT.contains(type) || ADMIN.contains(type);
    }

    static boolean adminOnly(String type) {
        return ADMIN.contains(type);
    }
}
