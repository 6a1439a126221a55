package pe.quipu.core.ruc;

import org.jdbi.v3.core.Handle;

/**
 * The database's name normalisation ({@code quipu_search_name}, changeset 016) computed in Java for names of
 * Latin-1 characters, the padrón's encoding, so that the padrón load can stage each name already normalised
 * instead of running {@code unaccent} and two regular expressions over millions of names inside its publication.
 *
 * <p>The table is read from the function itself, never written out here: for each character {@code c} from
 * U+0001 to U+00FF, what {@code quipu_search_name('a' || c || 'a')} leaves between the two letters (a letter in
 * lower case, nothing for a dot or an apostrophe, a space for other punctuation, "ae" for Æ…). The function works
 * character by character ({@code unaccent}'s rules and {@code lower}), then drops dots and apostrophes and turns
 * each run of other characters into one space, then trims spaces; so a name's normalisation is its characters'
 * pieces joined, with runs of spaces made one and the ends trimmed. Whatever the server's {@code unaccent} rules
 * or collation, the Java answer is the server's (SearchNamesTest compares the two over every character and many
 * random names).
 */
public final class SearchNames {

    private static final int LATIN_1 = 256;

    private final String[] pieces;

    private SearchNames(String[] pieces) {
        this.pieces = pieces;
    }

    /** Reads each Latin-1 character's piece from {@code quipu_search_name} on {@code handle}'s database. */
    public static SearchNames read(Handle handle) {
        String[] pieces = new String[LATIN_1];
        handle.createQuery("select i, quipu_search_name('a' || chr(i) || 'a') as framed"
                        + " from generate_series(1, " + (LATIN_1 - 1) + ") i")
                .map((rs, ctx) -> {
                    String framed = rs.getString("framed");
                    pieces[rs.getInt("i")] = framed.substring(1, framed.length() - 1);
                    return null;
                })
                .list();
        return new SearchNames(pieces);
    }

    /**
     * {@code name} normalised as {@code quipu_search_name} would, or null when it holds a character outside
     * U+0001-U+00FF (the caller then leaves the normalisation to the database). The result holds only a-z, 0-9 and
     * single spaces, so it is ASCII.
     */
    public String of(String name) {
        StringBuilder out = new StringBuilder(name.length());
        boolean space = true; // no space at the start
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c == 0 || c >= LATIN_1) {
                return null;
            }
            String piece = pieces[c];
            for (int j = 0; j < piece.length(); j++) {
                char p = piece.charAt(j);
                if (p == ' ') {
                    if (!space) {
                        out.append(' ');
                        space = true;
                    }
                } else {
                    out.append(p);
                    space = false;
                }
            }
        }
        if (space && !out.isEmpty()) {
            out.setLength(out.length() - 1);
        }
        return out.toString();
    }
}
