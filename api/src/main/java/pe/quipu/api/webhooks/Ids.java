package pe.quipu.api.webhooks;

import java.security.SecureRandom;

/** Public identifiers of deliveries and attempts: a prefix and 24 random base62 characters (143 bits). */
final class Ids {

    private static final char[] BASE62 =
            "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".toCharArray();
    private static final SecureRandom RANDOM = new SecureRandom();

    private Ids() {
    }

    static String newId(String prefix) {
        char[] id = new char[24];
        for (int i = 0; i < id.length; i++) {
            id[i] = BASE62[RANDOM.nextInt(BASE62.length)];
        }
        return prefix + new String(id);
    }
}
