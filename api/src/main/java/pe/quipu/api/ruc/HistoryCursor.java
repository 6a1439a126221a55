package pe.quipu.api.ruc;

import pe.quipu.api.domain.DomainException.InvalidInput;
import pe.quipu.api.domain.Cursors;
import pe.quipu.core.ruc.Ruc;
import pe.quipu.api.domain.Text;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where a page of a RUC's history ended: the keyset of its last change ({@code at}, in microseconds as PostgreSQL
 * keeps it, then {@code id}), and the RUC, so that a cursor sent with another RUC is refused rather than read as a
 * position in that one's history. Opaque to clients; base64url text.
 *
 * <p>Unlike a search's cursor it is bound to neither {@code limit} nor a load: the history's order (newest first, by
 * {@code at} then {@code id}) is that of rows that never change, so the keyset keeps its meaning across loads; a load
 * in between adds newer changes, which the first page shows, and skips or repeats nothing after the cursor.
 */
record HistoryCursor(String ruc, Instant at, long id) {

    private static final String VERSION = "h1";
    private static final Pattern FIELDS = Pattern.compile("h1\\|(\\d{11})\\|(-?\\d{1,18})\\|(\\d{1,18})");
    /** The longest cursor this class writes is under 80 characters. */
    private static final int MAX_LENGTH = 120;

    String encode() {
        String text = String.join("|", VERSION, ruc, Long.toString(ChronoUnit.MICROS.between(Instant.EPOCH, at)),
                Long.toString(id));
        return Base64.getUrlEncoder().withoutPadding().encodeToString(text.getBytes(StandardCharsets.US_ASCII));
    }

    /**
     * The cursor {@code text} encodes, which must be one of {@code ruc}'s history.
     *
     * @throws InvalidInput on the field {@code cursor} when the text is not a cursor of this history
     */
    static HistoryCursor decode(String text, Ruc ruc) {
        Matcher m = Cursors.fields(text, MAX_LENGTH, FIELDS, HistoryCursor::notACursor);
        if (!m.group(1).equals(ruc.value())) {
            throw new InvalidInput("cursor", Text.of("ruc.history.cursor_other_ruc"));
        }
        return new HistoryCursor(m.group(1), Instant.EPOCH.plus(Long.parseLong(m.group(2)), ChronoUnit.MICROS),
                Long.parseLong(m.group(3)));
    }

    private static InvalidInput notACursor() {
        return new InvalidInput("cursor", Text.of("ruc.history.not_a_cursor"));
    }
}
