package pe.quipu.api.domain;

import java.util.List;
import java.util.Locale;

/**
 * The languages Quipu answers in: English, and Spanish for a request whose {@code Accept-Language} prefers it
 * ({@code es}, or any {@code es-*} such as {@code es-PE}). Chosen by RFC 4647 lookup over the client's ranges in
 * their order of preference; English when the header is absent, malformed, or prefers neither.
 */
public enum Language {
    ENGLISH(Locale.ENGLISH),
    SPANISH(Locale.of("es"));

    private static final List<String> TAGS = List.of("en", "es");

    private final Locale locale;

    Language(Locale locale) {
        this.locale = locale;
    }

    public Locale locale() {
        return locale;
    }

    /** The language tag for {@code Content-Language}. */
    public String tag() {
        return locale.getLanguage();
    }

    /** The language an {@code Accept-Language} header asks for. */
    public static Language preferredBy(String acceptLanguage) {
        if (acceptLanguage == null || acceptLanguage.isBlank()) {
            return ENGLISH;
        }
        List<Locale.LanguageRange> ranges;
        try {
            ranges = Locale.LanguageRange.parse(acceptLanguage);
        } catch (IllegalArgumentException malformed) {
            return ENGLISH;
        }
        return "es".equals(Locale.lookupTag(ranges, TAGS)) ? SPANISH : ENGLISH;
    }
}
