package pe.quipu.api.http;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

/**
 * Strong entity tags computed from the exact bytes sent, so a tag changes exactly when the body does, and the
 * {@code If-None-Match} test (RFC 9110 §13.1.2: a list, {@code *}, weak comparison).
 */
public final class ETags {

    /** 22 base64url characters: 132 bits of SHA-256, ample against accidental collisions, short on the wire. */
    private static final int LENGTH = 22;

    private ETags() {
    }

    /** {@code "<base64url(SHA-256(body)) cut to 22>"}, quoted, never weak. */
    public static String strong(byte[] body) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(body);
            return '"' + Base64.getUrlEncoder().withoutPadding().encodeToString(digest).substring(0, LENGTH) + '"';
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    /**
     * True when {@code ifNoneMatch} (the header's values joined by commas, or null) matches {@code etag} of an
     * existing representation: {@code *}, or any listed tag equal to it after dropping {@code W/} from both.
     * A malformed header matches nothing, so the client just gets the full answer.
     */
    public static boolean matches(String ifNoneMatch, String etag) {
        if (ifNoneMatch == null) {
            return false;
        }
        String wanted = opaque(etag);
        int i = 0;
        int n = ifNoneMatch.length();
        while (i < n) {
            char c = ifNoneMatch.charAt(i);
            if (c == ' ' || c == '\t' || c == ',') {
                i++;
            } else if (c == '*') {
                return true;
            } else {
                if (ifNoneMatch.startsWith("W/", i)) {
                    i += 2;
                }
                if (i >= n || ifNoneMatch.charAt(i) != '"') {
                    return false;
                }
                // Tags may hold commas inside their quotes, so scan to the closing quote instead of splitting.
                int close = ifNoneMatch.indexOf('"', i + 1);
                if (close < 0) {
                    return false;
                }
                if (ifNoneMatch.substring(i, close + 1).equals(wanted)) {
                    return true;
                }
                i = close + 1;
            }
        }
        return false;
    }

    private static String opaque(String etag) {
        return etag.startsWith("W/") ? etag.substring(2) : etag;
    }
}
