package pe.quipu.api.http;

import java.util.Locale;
import java.util.Set;

/**
 * Hides the values of query parameters that may carry a secret, for logs: {@code access_token=qk_live_…} is
 * written {@code access_token=REDACTED}. Names are compared decoded and in any case, so {@code %61ccess_token} and
 * {@code Access_Token} are hidden too. Everything else is left exactly as the client sent it.
 */
public final class QueryRedaction {

    public static final String REDACTED = "REDACTED";

    /** The names the issue lists, and their usual relatives. */
    private static final Set<String> SECRET_NAMES = Set.of("access_token", "token", "key", "password",
            "refresh_token", "id_token", "api_key", "apikey", "secret", "client_secret", "passwd", "pwd");
    private static final String[] SECRET_SUFFIXES = {"_token", "_key", "_password", "_secret", "-token", "-key"};

    private QueryRedaction() {
    }

    /** The raw query (without {@code ?}) with every secret-named parameter's value replaced; null stays null. */
    public static String redact(String rawQuery) {
        if (rawQuery == null || rawQuery.isEmpty()) {
            return rawQuery;
        }
        StringBuilder out = new StringBuilder(rawQuery.length());
        String[] pairs = rawQuery.split("&", -1);
        for (int i = 0; i < pairs.length; i++) {
            if (i > 0) {
                out.append('&');
            }
            String pair = pairs[i];
            int equals = pair.indexOf('=');
            String name = equals < 0 ? pair : pair.substring(0, equals);
            if (isSecretName(lenientDecode(name)) && equals >= 0) {
                out.append(name).append('=').append(REDACTED);
            } else {
                out.append(pair);
            }
        }
        return out.toString();
    }

    /** Whether a (decoded) parameter or header name may carry a secret. */
    public static boolean isSecretName(String decodedName) {
        String name = decodedName.strip().toLowerCase(Locale.ROOT);
        if (SECRET_NAMES.contains(name)) {
            return true;
        }
        for (String suffix : SECRET_SUFFIXES) {
            if (name.endsWith(suffix)) {
                return true;
            }
        }
        return false;
    }

    /** Percent-decodes as {@link StrictQueryString} does; text that does not decode is compared as it is. */
    static String lenientDecode(String text) {
        try {
            return StrictQueryString.decode(text);
        } catch (IllegalArgumentException malformed) {
            return text;
        }
    }
}
