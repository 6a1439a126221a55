package pe.quipu.api.plans;

import org.jdbi.v3.core.Handle;

import java.security.SecureRandom;
import java.time.Instant;
import java.util.UUID;

/**
 * Subscriptions: every account has one current row (its plan and per-account overrides) and keeps the ended ones
 * as history. Paid periods are Lima calendar months, like quota months, so a subscription renews at the start of
 * the next month.
 */
public final class Subscriptions {

    public static final String FREE = "free";
    private static final char[] BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".toCharArray();
    private static final SecureRandom RANDOM = new SecureRandom();

    private Subscriptions() {
    }

    /** Opens the free subscription of a new account, on the caller's transaction. Returns its id. */
    public static String openFree(Handle handle, UUID accountId, Instant now) {
        return handle.attach(SubscriptionRows.class).open(accountId, FREE, Subscription.Overrides.NONE, now).id();
    }

    public static String newId() {
        char[] id = new char[24];
        for (int i = 0; i < id.length; i++) {
            id[i] = BASE62[RANDOM.nextInt(BASE62.length)];
        }
        return "sub_" + new String(id);
    }
}
