package pe.quipu.core.ruc;

/**
 * Parses one line of SUNAT's padrón reducido, already decoded from ISO-8859-1:
 * {@code RUC|NOMBRE|ESTADO|CONDICIÓN|UBIGEO|TIPO DE VÍA|NOMBRE DE VÍA|CÓDIGO DE ZONA|TIPO DE ZONA|NÚMERO|INTERIOR|LOTE|DEPARTAMENTO|MANZANA|KILÓMETRO|}.
 *
 * <p>Strict, because the loader must reject rather than guess: exactly 15 fields each closed by {@code |},
 * a valid RUC, a name, and a six-digit ubigeo or none. A CR or LF left at the end is tolerated. The file has
 * about 18 million lines, so fields are cut with an {@code indexOf} loop rather than a regex split.
 */
public final class PadronLine {

    /** Real columns per line; each is followed by {@code |}, the last one too. */
    public static final int COLUMNS = 15;

    private static final String[] TITLES = {"RUC", "NOMBRE O RAZÓN SOCIAL", "ESTADO DEL CONTRIBUYENTE",
            "CONDICIÓN DE DOMICILIO", "UBIGEO", "TIPO DE VÍA", "NOMBRE DE VÍA", "CÓDIGO DE ZONA", "TIPO DE ZONA",
            "NÚMERO", "INTERIOR", "LOTE", "DEPARTAMENTO", "MANZANA", "KILÓMETRO"};

    private PadronLine() {
    }

    /** True for the file's header line, which a loader skips rather than counts as malformed. */
    public static boolean isHeader(String line) {
        return line.startsWith("RUC|");
    }

    /** Parses the line or throws {@link MalformedPadronLineException} with the reason. */
    public static PadronRecord parse(String line) {
        if (line == null) {
            throw new MalformedPadronLineException("no line");
        }
        int end = line.length();
        while (end > 0 && (line.charAt(end - 1) == '\n' || line.charAt(end - 1) == '\r')) {
            end--;
        }
        String[] fields = new String[COLUMNS];
        int start = 0;
        int count = 0;
        while (start < end) {
            int bar = line.indexOf('|', start);
            if (bar < 0 || bar >= end) {
                throw new MalformedPadronLineException(
                        "the last field is not closed by '|' (expected " + COLUMNS + " fields each ending in '|')");
            }
            if (count == COLUMNS) {
                throw new MalformedPadronLineException("more than " + COLUMNS + " fields");
            }
            fields[count++] = value(line, start, bar);
            start = bar + 1;
        }
        if (count != COLUMNS) {
            throw new MalformedPadronLineException(count + " fields instead of " + COLUMNS);
        }

        Ruc ruc;
        try {
            ruc = Ruc.parse(fields[0]);
        } catch (InvalidRucException e) {
            throw new MalformedPadronLineException("invalid RUC: " + e.getMessage(), e);
        }
        if (fields[1] == null) {
            throw new MalformedPadronLineException("empty " + TITLES[1]);
        }
        String ubigeo = fields[4];
        if (ubigeo != null && !isSixDigits(ubigeo)) {
            throw new MalformedPadronLineException(TITLES[4] + " is not 6 digits or '-'");
        }
        Address address = new Address(fields[5], fields[6], fields[7], fields[8], fields[9], fields[10],
                fields[11], fields[12], fields[13], fields[14]);
        return new PadronRecord(ruc, fields[1], fields[2], fields[3], ubigeo, address);
    }

    /**
     * The field between {@code from} and {@code to}, trimmed, with inner runs of spaces kept as published;
     * null when blank or made of hyphens only (SUNAT writes {@code -}, and {@code ----} in some columns).
     */
    private static String value(String line, int from, int to) {
        while (from < to && isSpace(line.charAt(from))) {
            from++;
        }
        while (to > from && isSpace(line.charAt(to - 1))) {
            to--;
        }
        if (from == to) {
            return null;
        }
        boolean hyphens = true;
        for (int i = from; i < to && hyphens; i++) {
            hyphens = line.charAt(i) == '-';
        }
        return hyphens ? null : line.substring(from, to);
    }

    // Plain ASCII blanks only: ISO-8859-1's no-break space (0xA0) is content if SUNAT ever publishes it.
    private static boolean isSpace(char c) {
        return c == ' ' || c == '\t';
    }

    private static boolean isSixDigits(String s) {
        if (s.length() != 6) {
            return false;
        }
        for (int i = 0; i < 6; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }
}
