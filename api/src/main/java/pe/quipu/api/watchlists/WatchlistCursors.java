package pe.quipu.api.watchlists;

import pe.quipu.api.domain.DomainException.InvalidInput;
import pe.quipu.api.domain.Cursors;
import pe.quipu.api.domain.Text;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The cursors of a list's pages, opaque base64url text naming the list they belong to, so that one sent with another
 * list is refused rather than read as a position in it: {@code l1|name|ruc} for its RUCs (the last RUC shown), and
 * {@code c1|name|at|id} for its changes (the keyset of the last change shown, {@code at} in microseconds as
 * PostgreSQL keeps it). Both orders are of values that never change, so a cursor keeps its meaning across writes
 * and loads: nothing after it is skipped or repeated.
 */
final class WatchlistCursors {

    private static final Pattern RUCS = Pattern.compile("l1\\|([a-z0-9_-]{1,64})\\|(\\d{11})");
    private static final Pattern CHANGES = Pattern.compile("c1\\|([a-z0-9_-]{1,64})\\|(-?\\d{1,18})\\|(\\d{1,18})");
    private static final int MAX_LENGTH = 160;

    private WatchlistCursors() {
    }

    /** Where a page of a list's changes ended. */
    record ChangesAfter(Instant at, long id) {
    }

    static String rucs(String list, String lastRuc) {
        return encode("l1|" + list + "|" + lastRuc);
    }

    static String changes(String list, Instant at, long id) {
        return encode("c1|" + list + "|" + ChronoUnit.MICROS.between(Instant.EPOCH, at) + "|" + id);
    }

    /** The last RUC of the page {@code text} continues, which must be a cursor of {@code list}'s RUCs. */
    static String rucsAfter(String text, String list) {
        Matcher m = match(RUCS, text, list);
        return m.group(2);
    }

    /** The keyset of the page {@code text} continues, which must be a cursor of {@code list}'s changes. */
    static ChangesAfter changesAfter(String text, String list) {
        Matcher m = match(CHANGES, text, list);
        return new ChangesAfter(Instant.EPOCH.plus(Long.parseLong(m.group(2)), ChronoUnit.MICROS),
                Long.parseLong(m.group(3)));
    }

    private static Matcher match(Pattern pattern, String text, String list) {
        Matcher m = Cursors.fields(text, MAX_LENGTH, pattern, WatchlistCursors::notACursor);
        if (!m.group(1).equals(list)) {
            throw new InvalidInput("cursor", Text.of("watchlists.cursor.another_list"));
        }
        return m;
    }

    private static String encode(String text) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(text.getBytes(StandardCharsets.US_ASCII));
    }

    private static InvalidInput notACursor() {
        return new InvalidInput("cursor", Text.of("watchlists.cursor.not_a_cursor"));
    }
}
