package pe.quipu.api.ruc;

import pe.quipu.api.domain.DomainException.InvalidInput;
import pe.quipu.api.domain.Cursors;
import pe.quipu.api.domain.Text;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Where a page of a search by name ended, so that the next page continues that very search: the keyset of the last
 * item (its {@link RucSearch} tier, similarity, RUC: the ranking's own order), a fingerprint of the search's
 * parameters (a cursor sent with other parameters is refused) and the padrón load it was made on (a cursor made
 * before a load is refused as stale: the candidates and their order belong to one registry). Opaque to clients;
 * base64url text.
 *
 * @param generation the padrón load's time in microseconds since the epoch, or -1 before any load
 * @param search     the fingerprint of the parameters ({@link #fingerprint})
 */
record SearchCursor(long generation, String search, int tier, float score, String ruc) {

    private static final String VERSION = "s1";
    private static final Pattern FIELDS = Pattern.compile(
            "s1\\|(-1|\\d{1,19})\\|([0-9a-f]{16})\\|([012])\\|([0-9a-f]{1,8})\\|(\\d{11})");

    /** A short fingerprint of the search's parameters, in a fixed order; absent ones count as empty. */
    static String fingerprint(List<String> parameters) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            for (String p : parameters) {
                sha.update((p == null ? "\u0000" : p).getBytes(StandardCharsets.UTF_8));
                sha.update((byte) 0x1f);
            }
            return HexFormat.of().formatHex(sha.digest(), 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    String encode() {
        String text = String.join("|", VERSION, Long.toString(generation), search, Integer.toString(tier),
                Integer.toHexString(Float.floatToRawIntBits(score)), ruc);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(text.getBytes(StandardCharsets.US_ASCII));
    }

    /** @throws InvalidInput when the text is not a cursor this API gave */
    static SearchCursor decode(String text) {
        var m = Cursors.fields(text, 200, FIELDS, SearchCursor::notACursor);
        try {
            float score = Float.intBitsToFloat(Integer.parseUnsignedInt(m.group(4), 16));
            if (Float.isNaN(score)) {
                throw notACursor();
            }
            return new SearchCursor(Long.parseLong(m.group(1)), m.group(2), Integer.parseInt(m.group(3)), score,
                    m.group(5));
        } catch (NumberFormatException e) {
            throw notACursor();
        }
    }

    private static InvalidInput notACursor() {
        return new InvalidInput("cursor", Text.of("ruc.search.not_a_cursor"));
    }
}
