package pe.quipu.api.webhooks;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;

/**
 * Webhook secrets and the two signature headers of a delivery (contract §6):
 * <ul>
 *   <li>{@code x-quipu-signature: t=<ts>,v1=<hex>[,v0=<hex>]}, HMAC-SHA256 over {@code <ts>.<body>} keyed with the
 *       UTF-8 bytes of the whole secret string, as Stripe's libraries expect;</li>
 *   <li>{@code webhook-signature: v1,<base64> [v1,<base64>]}, HMAC-SHA256 over {@code <event id>.<ts>.<body>} keyed
 *       with the base64-decoded part after {@code whsec_}, as the Standard Webhooks libraries expect.</li>
 * </ul>
 * During a rotation's grace the current secret signs {@code v1} and the previous one {@code v0}; the Standard
 * Webhooks header lists one signature per secret.
 */
final class Signatures {

    static final String SECRET_PREFIX = "whsec_";
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final HexFormat HEX = HexFormat.of();

    private Signatures() {
    }

    /** {@code whsec_} and the base64 of 32 random bytes. */
    static String newSecret() {
        byte[] key = new byte[32];
        RANDOM.nextBytes(key);
        return SECRET_PREFIX + Base64.getEncoder().encodeToString(key);
    }

    /** The secrets that sign an attempt: the current one, and the previous one while its grace lasts (or null). */
    record Secrets(String current, String previous) {
    }

    static String quipuSignature(long timestamp, byte[] body, Secrets secrets) {
        StringBuilder header = new StringBuilder("t=").append(timestamp)
                .append(",v1=").append(HEX.formatHex(stripe(secrets.current(), timestamp, body)));
        if (secrets.previous() != null) {
            header.append(",v0=").append(HEX.formatHex(stripe(secrets.previous(), timestamp, body)));
        }
        return header.toString();
    }

    static String standardSignature(String eventId, long timestamp, byte[] body, Secrets secrets) {
        String header = "v1," + Base64.getEncoder().encodeToString(standard(secrets.current(), eventId, timestamp, body));
        if (secrets.previous() != null) {
            header += " v1," + Base64.getEncoder().encodeToString(standard(secrets.previous(), eventId, timestamp, body));
        }
        return header;
    }

    private static byte[] stripe(String secret, long timestamp, byte[] body) {
        return hmac(secret.getBytes(StandardCharsets.UTF_8), (timestamp + ".").getBytes(StandardCharsets.US_ASCII),
                body);
    }

    private static byte[] standard(String secret, String eventId, long timestamp, byte[] body) {
        byte[] key = Base64.getDecoder().decode(secret.substring(SECRET_PREFIX.length()));
        return hmac(key, (eventId + "." + timestamp + ".").getBytes(StandardCharsets.UTF_8), body);
    }

    private static byte[] hmac(byte[] key, byte[] prefix, byte[] body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            mac.update(prefix);
            return mac.doFinal(body);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
        }
    }
}
