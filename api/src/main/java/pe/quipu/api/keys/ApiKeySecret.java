package pe.quipu.api.keys;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;

/**
 * An API key's secret: {@code qk_live_} and 40 random base62 characters (about 238 bits).
 * Only its SHA-256 is stored; a fast hash is right for a random secret of this length, and it lets the
 * key be found by an index lookup. The secret is never logged: {@link #toString()} shows the prefix only.
 */
public final class ApiKeySecret {

    public static final String PREFIX = "qk_live_";
    private static final int RANDOM_LENGTH = 40;
    private static final int DISPLAY_PREFIX_LENGTH = PREFIX.length() + 6;
    private static final char[] BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".toCharArray();
    private static final SecureRandom RANDOM = new SecureRandom();

    private final String value;

    private ApiKeySecret(String value) {
        this.value = value;
    }

    public static ApiKeySecret generate() {
        char[] chars = new char[RANDOM_LENGTH];
        for (int i = 0; i < chars.length; i++) {
            chars[i] = BASE62[RANDOM.nextInt(BASE62.length)];
        }
        return new ApiKeySecret(PREFIX + new String(chars));
    }

    /** The secret as the client shows it; call only to hand it to the key's owner once. */
    public String reveal() {
        return value;
    }

    /** The first characters, safe to show and to log, by which an owner recognises the key. */
    public String displayPrefix() {
        return value.substring(0, DISPLAY_PREFIX_LENGTH);
    }

    public byte[] hash() {
        return hashOf(value);
    }

    /** Whether {@code candidate} has the shape of a Quipu key at all (checked before any lookup). */
    public static boolean wellFormed(String candidate) {
        if (candidate == null || !candidate.startsWith(PREFIX) || candidate.length() != PREFIX.length() + RANDOM_LENGTH) {
            return false;
        }
        for (int i = PREFIX.length(); i < candidate.length(); i++) {
            char c = candidate.charAt(i);
            if (!(c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z')) {
                return false;
            }
        }
        return true;
    }

    public static byte[] hashOf(String candidate) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(candidate.getBytes(StandardCharsets.US_ASCII));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public String toString() {
        return displayPrefix() + "…";
    }
}
