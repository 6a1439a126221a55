package pe.quipu.etl.extendido;

import pe.quipu.core.ruc.InvalidRucException;
import pe.quipu.core.ruc.Ruc;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * SUNAT's open-data PadronRUC CSV ({@code shared/data/padron/SOURCE.md}): a header naming the columns, comma-
 * delimited in recent editions and {@code |} in older ones (told apart by the header), {@code NO DISPONIBLE} for
 * empty. Only three columns matter to Quipu and they are found by name, case-insensitive, wherever they are:
 * {@code RUC}, {@code Tipo} and {@code Actividad_Economica_CIIU_revision4_Principal}. A record never spans lines;
 * a field may be in double quotes (doubled inside).
 */
final class PadronRucCsv {

    static final String RUC = "ruc";
    static final String TIPO = "tipo";
    static final String CIIU = "actividad_economica_ciiu_revision4_principal";
    private static final String NO_DISPONIBLE = "NO DISPONIBLE";
    /** A CIIU code followed by its description: {@code 46900 - VENTA AL POR MAYOR NO ESPECIALIZADA}. */
    private static final Pattern CODE_AND_DESCRIPTION = Pattern.compile("(\\d+)\\s*-\\s*.*", Pattern.DOTALL);

    private final char delimiter;
    private final int columns;
    private final int rucIndex;
    private final int tipoIndex;
    private final int ciiuIndex;

    /** One data line read: the RUC and the values for {@code tipo} and {@code ciiu} (null when empty). */
    record Row(Ruc ruc, String tipo, String ciiu) {
    }

    /** A line that cannot be loaded, and why (for the rejected-lines sample). */
    static final class MalformedLineException extends RuntimeException {
        MalformedLineException(String message) {
            super(message);
        }
    }

    private PadronRucCsv(char delimiter, List<String> header) {
        this.delimiter = delimiter;
        this.columns = header.size();
        this.rucIndex = indexOf(header, RUC);
        this.tipoIndex = indexOf(header, TIPO);
        this.ciiuIndex = indexOf(header, CIIU);
    }

    /**
     * Reads the header line.
     *
     * @throws IllegalArgumentException when it is not a PadronRUC header (a required column is missing)
     */
    static PadronRucCsv header(String line) {
        if (line == null) {
            throw new IllegalArgumentException("the file is empty: no PadronRUC header");
        }
        String text = line.startsWith("\uFEFF") ? line.substring(1) : line;
        // The delimiter that splits the header: the older editions' '|' when it occurs, else the comma.
        char delimiter = text.indexOf('|') >= 0 ? '|' : ',';
        List<String> names = split(text, delimiter);
        if (names == null) {
            throw new IllegalArgumentException("unreadable PadronRUC header: unbalanced quotes");
        }
        return new PadronRucCsv(delimiter, names.stream().map(n -> n.strip().toLowerCase(Locale.ROOT)).toList());
    }

    char delimiter() {
        return delimiter;
    }

    /**
     * Reads one data line.
     *
     * @throws MalformedLineException for a wrong number of fields or unbalanced quotes
     * @throws InvalidRucException    for a RUC that fails a rule
     */
    Row row(String line) {
        List<String> fields = split(line, delimiter);
        if (fields == null) {
            throw new MalformedLineException("unbalanced quotes");
        }
        // A trailing delimiter on every line (as in the padrón reducido) adds one empty field.
        if (fields.size() == columns + 1 && fields.getLast().isBlank()) {
            fields = fields.subList(0, columns);
        }
        if (fields.size() != columns) {
            throw new MalformedLineException(fields.size() + " fields where the header has " + columns);
        }
        Ruc ruc = Ruc.parse(fields.get(rucIndex).strip());
        return new Row(ruc, value(fields.get(tipoIndex)), ciiu(value(fields.get(ciiuIndex))));
    }

    /** Trimmed; {@code NO DISPONIBLE}, blank and {@code -} (the padrón's own placeholder) are null. */
    static String value(String field) {
        String v = field.strip();
        return v.isEmpty() || v.equalsIgnoreCase(NO_DISPONIBLE) || v.equals("-") ? null : v;
    }

    /**
     * The activity code: some editions publish the code alone ({@code 46900}), others the code and its
     * description ({@code 46900 - VENTA AL POR MAYOR…}); the API's {@code ciiu} is the code, so the
     * description is dropped. A value that does not start with a code is kept as published.
     */
    static String ciiu(String value) {
        if (value == null) {
            return null;
        }
        Matcher m = CODE_AND_DESCRIPTION.matcher(value);
        return m.matches() ? m.group(1) : value;
    }

    private static int indexOf(List<String> header, String name) {
        int i = header.indexOf(name);
        if (i < 0) {
            throw new IllegalArgumentException("not a PadronRUC file: the header has no column " + name
                    + " (columns: " + String.join(", ", header) + ")");
        }
        return i;
    }

    /** The fields of one line, or null for unbalanced quotes. */
    static List<String> split(String line, char delimiter) {
        List<String> fields = new ArrayList<>(16);
        int n = line.length();
        int i = 0;
        while (true) {
            if (i < n && line.charAt(i) == '"') {
                StringBuilder field = new StringBuilder();
                i++;
                while (true) {
                    if (i >= n) {
                        return null;
                    }
                    char c = line.charAt(i++);
                    if (c == '"') {
                        if (i < n && line.charAt(i) == '"') {
                            field.append('"');
                            i++;
                        } else {
                            break;
                        }
                    } else {
                        field.append(c);
                    }
                }
                if (i < n && line.charAt(i) != delimiter) {
                    return null;
                }
                fields.add(field.toString());
            } else {
                int end = line.indexOf(delimiter, i);
                fields.add(line.substring(i, end < 0 ? n : end));
                i = end < 0 ? n : end;
            }
            if (i >= n) {
                return fields;
            }
            i++; // the delimiter
            if (i == n) {
                fields.add("");
                return fields;
            }
        }
    }
}
