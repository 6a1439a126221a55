package pe.quipu.api.keys;

import pe.quipu.api.platform.NotificationListener;

/**
 * Keeps this instance's API key cache in step with the {@code api_keys} table: a trigger on it notifies
 * {@code quipu_api_keys} with the key's hash, and the key is evicted, so a revoked key fails from the next
 * request on every instance. An insert notifies {@code inserted:} and the hash: only a remembered miss of that hash
 * is forgotten. When the listener's connection is lost the whole cache is dropped (and again once it is back),
 * since notifications sent meanwhile are gone.
 */
public final class KeyChangeListener {

    static final String CHANNEL = "quipu_api_keys";
    static final String INSERTED = "inserted:";

    private KeyChangeListener() {
    }

    public static void register(NotificationListener listener, ApiKeyAuthenticator authenticator) {
        listener.on(CHANNEL, payload -> {
            if (payload.startsWith(INSERTED)) {
                authenticator.forgetMiss(payload.substring(INSERTED.length()));
            } else {
                authenticator.evict(payload);
            }
        }, authenticator::evictAll);
    }
}
