package pe.quipu.api.domain;

import pe.quipu.api.domain.DomainException.InvalidInput;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The opaque page cursors the API gives (a RUC's history, the search by name, a watchlist's RUCs and changes):
 * URL-safe base64 of an ASCII text of fields. Decoding one a client sent back is bounded and checked the same way
 * for all of them.
 */
public final class Cursors {

    private Cursors() {
    }

    /**
     * The fields of cursor {@code text}: its decoded text matched against {@code fields}.
     *
     * @param maxLength  the longest cursor text accepted (longer is refused before decoding)
     * @param notACursor the fault to throw when the text is too long, not base64, or not of {@code fields}' shape
     */
    public static Matcher fields(String text, int maxLength, Pattern fields, Supplier<InvalidInput> notACursor) {
        String decoded;
        try {
            if (text.length() > maxLength) {
                throw new IllegalArgumentException("too long");
            }
            decoded = new String(Base64.getUrlDecoder().decode(text), StandardCharsets.US_ASCII);
        } catch (IllegalArgumentException e) {
            throw notACursor.get();
        }
        Matcher m = fields.matcher(decoded);
        if (!m.matches()) {
            throw notACursor.get();
        }
        return m;
    }
}
