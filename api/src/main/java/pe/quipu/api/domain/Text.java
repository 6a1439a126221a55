package pe.quipu.api.domain;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.MissingResourceException;
import java.util.ResourceBundle;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A message for a person, kept as a key and its arguments rather than as words, so that the answer can say it in the
 * caller's language. The words live in resource bundles, one pair per package of the API:
 * {@code pe/quipu/api/<area>/messages.properties} (English) beside {@code messages_es.properties} (Spanish), where
 * {@code <area>} is the key's first segment ({@code ruc.search.q_required} is in {@code pe/quipu/api/ruc/}).
 * <p>
 * A pattern names its arguments {@code {0}}, {@code {1}}, …, and nothing else in it is special (no
 * {@link java.text.MessageFormat} quoting, no number formatting: a RUC or a count reads the same in both languages).
 * An argument that is itself a {@code Text} is said in the same language.
 */
public record Text(String key, List<Object> args) {

    private static final Map<String, Map<Language, ResourceBundle>> BUNDLES = new ConcurrentHashMap<>();
    private static final ResourceBundle.Control NO_FALLBACK =
            ResourceBundle.Control.getNoFallbackControl(ResourceBundle.Control.FORMAT_PROPERTIES);

    public Text {
        int dot = key.indexOf('.');
        if (dot <= 0 || dot == key.length() - 1) {
            throw new IllegalArgumentException("a message key is <area>.<name>, not " + key);
        }
        args = Collections.unmodifiableList(new ArrayList<>(args));
    }

    public static Text of(String key, Object... args) {
        return new Text(key, Arrays.asList(args));
    }

    /** The package (under {@code pe.quipu.api}) whose bundles hold this key. */
    public String area() {
        return key.substring(0, key.indexOf('.'));
    }

    /** The words in {@code language}. */
    public String in(Language language) {
        String pattern = pattern(key, language);
        StringBuilder out = new StringBuilder(pattern.length() + 32);
        int i = 0;
        while (i < pattern.length()) {
            char c = pattern.charAt(i);
            int close = c == '{' ? pattern.indexOf('}', i) : -1;
            if (close > i + 1 && isIndex(pattern, i + 1, close)) {
                int index = Integer.parseInt(pattern, i + 1, close, 10);
                if (index >= args.size()) {
                    throw new IllegalStateException("the message " + key + " names {" + index + "} but has "
                            + args.size() + " arguments");
                }
                Object arg = args.get(index);
                out.append(arg instanceof Text text ? text.in(language) : String.valueOf(arg));
                i = close + 1;
            } else {
                out.append(c);
                i++;
            }
        }
        return out.toString();
    }

    /** The English words: what commands print and logs show. */
    public String english() {
        return in(Language.ENGLISH);
    }

    @Override
    public String toString() {
        return english();
    }

    /** The pattern of a key in a language, from the area's bundle. */
    public static String pattern(String key, Language language) {
        String area = key.substring(0, key.indexOf('.'));
        ResourceBundle bundle = BUNDLES.computeIfAbsent(area, a -> new ConcurrentHashMap<>())
                .computeIfAbsent(language, l -> ResourceBundle.getBundle(bundleName(area), l.locale(), NO_FALLBACK));
        try {
            return bundle.getString(key);
        } catch (MissingResourceException e) {
            throw new IllegalStateException("no message " + key + " in " + bundleName(area), e);
        }
    }

    /** The base name of an area's bundles. */
    public static String bundleName(String area) {
        return "pe.quipu.api." + area + ".messages";
    }

    private static boolean isIndex(String pattern, int from, int to) {
        for (int j = from; j < to; j++) {
            if (pattern.charAt(j) < '0' || pattern.charAt(j) > '9') {
                return false;
            }
        }
        return to - from <= 2;
    }
}
