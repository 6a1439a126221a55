package pe.quipu.etl.sunat;

import java.text.Normalizer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The columns of one of SUNAT's {@code |}-separated files, found by their header names (contract §10): case,
 * accents, spaces and a leading byte-order mark are ignored, so {@code Ruc}, {@code RUC} and {@code R U C} are one
 * column and {@code A partir del} is {@code APARTIRDEL}; a reordered or extended file still loads. A file missing a
 * column the job needs is refused, naming the column.
 */
public final class SunatColumns {

    /** The byte-order mark as its three UTF-8 bytes read as ISO-8859-1, and as the character itself. */
    private static final String UTF8_BOM_AS_LATIN1 = "\u00EF\u00BB\u00BF";
    private static final char BOM = '\uFEFF';

    private final int[] positions;
    private final int width;

    private SunatColumns(int[] positions, int width) {
        this.positions = positions;
        this.width = width;
    }

    /**
     * @param header   the file's first line, as read (ISO-8859-1)
     * @param required the columns the job reads, as SUNAT titles them; {@link #field} takes their index here
     * @throws MissingColumnException naming the first required column the header lacks
     */
    static SunatColumns of(String header, List<String> required) {
        String line = header;
        if (line.startsWith(UTF8_BOM_AS_LATIN1)) {
            line = line.substring(UTF8_BOM_AS_LATIN1.length());
        } else if (!line.isEmpty() && line.charAt(0) == BOM) {
            line = line.substring(1);
        }
        List<String> titles = split(line);
        Map<String, Integer> byName = new HashMap<>();
        for (int i = 0; i < titles.size(); i++) {
            // The first of two columns with one name wins; SUNAT never repeats one.
            byName.putIfAbsent(normalize(titles.get(i)), i);
        }
        int[] positions = new int[required.size()];
        for (int i = 0; i < required.size(); i++) {
            Integer at = byName.get(normalize(required.get(i)));
            if (at == null) {
                throw new MissingColumnException(required.get(i), line);
            }
            positions[i] = at;
        }
        return new SunatColumns(positions, titles.size());
    }

    /** Upper case, no accents, no spaces: the form two titles are compared in. */
    static String normalize(String title) {
        String decomposed = Normalizer.normalize(title, Normalizer.Form.NFD);
        StringBuilder out = new StringBuilder(decomposed.length());
        for (int i = 0; i < decomposed.length(); i++) {
            char c = decomposed.charAt(i);
            if (Character.getType(c) == Character.NON_SPACING_MARK || Character.isWhitespace(c) || c == '\u00A0'
                    || c == BOM) {
                continue;
            }
            out.append(c);
        }
        return out.toString().toUpperCase(Locale.ROOT);
    }

    /** How many columns the header names. */
    int width() {
        return width;
    }

    /**
     * The value of required column {@code index} in a line's fields, trimmed; null when the line is too short for
     * it or the value is blank.
     */
    String field(List<String> fields, int index) {
        int at = positions[index];
        if (at >= fields.size()) {
            return null;
        }
        String value = fields.get(at).strip();
        return value.isEmpty() ? null : value;
    }

    /** The fields of a line: split at every {@code |}, the empty field after a closing {@code |} left out. */
    public static List<String> split(String line) {
        List<String> fields = new ArrayList<>(16);
        int start = 0;
        int end = line.length();
        while (end > 0 && (line.charAt(end - 1) == '\r' || line.charAt(end - 1) == '\n')) {
            end--;
        }
        while (start <= end) {
            int bar = line.indexOf('|', start);
            if (bar < 0 || bar >= end) {
                if (start < end) {
                    fields.add(line.substring(start, end)); // a last field without its closing '|'
                }
                break;
            }
            fields.add(line.substring(start, bar));
            start = bar + 1;
        }
        return fields;
    }

    /** A file whose header lacks a column the job needs: the whole file is refused. */
    static final class MissingColumnException extends IllegalStateException {
        MissingColumnException(String column, String header) {
            super("the file has no column \"" + column + "\" (its header: " + shorten(header)
                    + "); the data in service is unchanged");
        }

        private static String shorten(String header) {
            return header.length() > 300 ? header.substring(0, 300) + "…" : header;
        }
    }
}
