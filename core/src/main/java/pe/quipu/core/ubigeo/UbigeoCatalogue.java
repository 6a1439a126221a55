package pe.quipu.core.ubigeo;

import java.text.Normalizer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The ubigeo catalogue in memory, immutable, ordered by code. Built once per load (about 1,900 districts), then
 * read by every request without locks: codes and the accent-free lower-case names are precomputed, so a search
 * only normalises the query and walks arrays.
 */
public final class UbigeoCatalogue {

    private final Ubigeo[] ubigeos;
    private final String[] codes;
    private final String[] distritos;
    private final String[] provincias;
    private final String[] departamentos;

    private UbigeoCatalogue(Ubigeo[] ubigeos) {
        this.ubigeos = ubigeos;
        int n = ubigeos.length;
        codes = new String[n];
        distritos = new String[n];
        provincias = new String[n];
        departamentos = new String[n];
        // Province and department names repeat on every district; normalise each distinct name once.
        Map<String, String> normalised = new HashMap<>();
        for (int i = 0; i < n; i++) {
            Ubigeo u = ubigeos[i];
            codes[i] = u.code();
            distritos[i] = normalised.computeIfAbsent(u.distrito(), UbigeoCatalogue::normalise);
            provincias[i] = normalised.computeIfAbsent(u.provincia(), UbigeoCatalogue::normalise);
            departamentos[i] = normalised.computeIfAbsent(u.departamento(), UbigeoCatalogue::normalise);
        }
    }

    /** A catalogue of these districts, in any order; a code given twice is refused. */
    public static UbigeoCatalogue of(Collection<Ubigeo> districts) {
        Ubigeo[] sorted = districts.toArray(Ubigeo[]::new);
        Arrays.sort(sorted, Comparator.comparing(Ubigeo::code));
        for (int i = 1; i < sorted.length; i++) {
            if (sorted[i].code().equals(sorted[i - 1].code())) {
                throw new IllegalArgumentException("ubigeo " + sorted[i].code() + " is given twice");
            }
        }
        return new UbigeoCatalogue(sorted);
    }

    public int size() {
        return ubigeos.length;
    }

    /** Every district, in code order. */
    public List<Ubigeo> all() {
        return List.of(ubigeos);
    }

    public Optional<Ubigeo> find(String code) {
        int i = Arrays.binarySearch(codes, code);
        return i >= 0 ? Optional.of(ubigeos[i]) : Optional.empty();
    }

    /**
     * The page of districts that match every filter of the query, after its cursor, in code order.
     * The code prefix filters select a contiguous run of the sorted codes, so they cost a binary search, not a
     * scan; {@code q} is checked item by item on precomputed names.
     */
    public UbigeoPage search(UbigeoQuery query) {
        String prefix = query.departamento();
        if (query.provincia() != null) {
            if (prefix != null && !query.provincia().startsWith(prefix)) {
                // A province outside the given department: a well-formed filter that matches nothing.
                return UbigeoPage.EMPTY;
            }
            prefix = query.provincia();
        }
        int from = prefix == null ? 0 : insertionPoint(prefix);
        if (query.cursor() != null) {
            int i = Arrays.binarySearch(codes, query.cursor());
            from = Math.max(from, i >= 0 ? i + 1 : -i - 1);
        }
        String needle = query.q() == null ? null : normalise(query.q());
        List<Ubigeo> page = new ArrayList<>(Math.min(query.limit(), 256));
        for (int i = from; i < codes.length; i++) {
            if (prefix != null && !codes[i].startsWith(prefix)) {
                break;
            }
            if (needle != null && !matches(i, needle)) {
                continue;
            }
            if (page.size() == query.limit()) {
                // One more match exists beyond the full page: only now is there a next page.
                return new UbigeoPage(page, page.getLast().code());
            }
            page.add(ubigeos[i]);
        }
        return new UbigeoPage(page, null);
    }

    private boolean matches(int i, String needle) {
        return distritos[i].contains(needle) || provincias[i].contains(needle) || departamentos[i].contains(needle);
    }

    private int insertionPoint(String prefix) {
        int i = Arrays.binarySearch(codes, prefix);
        return i >= 0 ? i : -i - 1;
    }

    /**
     * The form names and queries are compared in: decomposed (NFD), combining marks removed, lower case in the
     * root locale, so {@code Áncash}, {@code ANCASH} and {@code ancash} are equal (and {@code ñ} counts as
     * {@code n}).
     */
    public static String normalise(String text) {
        String decomposed = Normalizer.normalize(text, Normalizer.Form.NFD);
        StringBuilder out = new StringBuilder(decomposed.length());
        for (int i = 0; i < decomposed.length(); ) {
            int cp = decomposed.codePointAt(i);
            int type = Character.getType(cp);
            if (type != Character.NON_SPACING_MARK && type != Character.COMBINING_SPACING_MARK
                    && type != Character.ENCLOSING_MARK) {
                out.appendCodePoint(cp);
            }
            i += Character.charCount(cp);
        }
        return out.toString().toLowerCase(Locale.ROOT);
    }
}
