package pe.quipu.api.http;

import jakarta.servlet.http.HttpServletRequest;
import pe.quipu.api.domain.DomainException.InvalidInput;
import pe.quipu.api.domain.Text;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Parses a raw query string ({@code a=1&b=x%C3%A1}) strictly. Jersey's own decoding is lenient: it passes
 * {@code %zz} through as the literal text and turns bytes that are not UTF-8 into U+FFFD, so a garbled query
 * would be searched for instead of being refused. Here broken percent-encoding and invalid UTF-8 are errors,
 * {@code +} is a space (HTML forms and {@link java.net.URLEncoder} write spaces so), and every occurrence of a
 * name is kept, in order, so that callers can refuse repeats.
 *
 * <p>Resources are strict the way Stripe is: a parameter the endpoint does not know (a typo such as
 * {@code departmento}; names are case-sensitive) or one given twice is a 400 naming it, rather than being
 * silently ignored.
 */
public final class StrictQueryString {

    private StrictQueryString() {
    }

    /**
     * The request's query parameters, decoded strictly, refusing names outside {@code known} and names given
     * more than once. Read from the raw query string as the client sent it: Jersey's decoded view has already
     * repaired broken percent-encoding, which should be a 400 instead.
     */
    public static Map<String, String> single(HttpServletRequest request, List<String> known) {
        Map<String, List<String>> parameters;
        try {
            parameters = parse(request.getQueryString());
        } catch (Malformed e) {
            throw InvalidInput.of(Text.of("http.query.malformed", e.reason()));
        }
        Map<String, String> single = new HashMap<>();
        for (var parameter : parameters.entrySet()) {
            String name = parameter.getKey();
            if (!known.contains(name)) {
                throw new InvalidInput(name, known.isEmpty()
                        ? Text.of("http.query.unknown_takes_none")
                        : Text.of("http.query.unknown_takes", String.join(", ", known)));
            }
            if (parameter.getValue().size() > 1) {
                throw new InvalidInput(name, Text.of("http.query.repeated", parameter.getValue().size()));
            }
            single.put(name, parameter.getValue().getFirst());
        }
        return single;
    }

    /**
     * @param raw the query as received, without {@code ?}; {@code null} or empty for none
     * @return decoded name → decoded values, in the order first seen
     * @throws Malformed saying what is malformed
     */
    public static Map<String, List<String>> parse(String raw) {
        Map<String, List<String>> parameters = new LinkedHashMap<>();
        if (raw == null || raw.isEmpty()) {
            return parameters;
        }
        for (String pair : raw.split("&", -1)) {
            if (pair.isEmpty()) {
                continue; // "a=1&&b=2", a trailing "&": nothing was sent there.
            }
            int equals = pair.indexOf('=');
            String name = decode(equals < 0 ? pair : pair.substring(0, equals));
            String value = equals < 0 ? "" : decode(pair.substring(equals + 1));
            parameters.computeIfAbsent(name, n -> new ArrayList<>()).add(value);
        }
        return parameters;
    }

    /** A query string that cannot be decoded, and why. */
    public static final class Malformed extends IllegalArgumentException {
        private final Text reason;

        Malformed(Text reason) {
            super(reason.english(), null);
            this.reason = reason;
        }

        public Text reason() {
            return reason;
        }
    }

    static String decode(String text) {
        if (plain(text)) {
            return text; // ASCII without '%' or '+' decodes to itself: fuente=sunat, fecha=2026-09-29.
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(text.length());
        for (int i = 0; i < text.length(); ) {
            char c = text.charAt(i);
            if (c == '%') {
                int high = i + 2 < text.length() ? hex(text.charAt(i + 1)) : -1;
                int low = i + 2 < text.length() ? hex(text.charAt(i + 2)) : -1;
                if (high < 0 || low < 0) {
                    throw new Malformed(Text.of("http.query.bad_percent"));
                }
                bytes.write(high << 4 | low);
                i += 3;
            } else if (c == '+') {
                bytes.write(' ');
                i++;
            } else {
                // Not percent-encoded although it should have been; taken as the character it is.
                int codePoint = text.codePointAt(i);
                bytes.writeBytes(new String(Character.toChars(codePoint)).getBytes(StandardCharsets.UTF_8));
                i += Character.charCount(codePoint);
            }
        }
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes.toByteArray()))
                    .toString();
        } catch (CharacterCodingException e) {
            throw new Malformed(Text.of("http.query.not_utf8"));
        }
    }

    private static boolean plain(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c >= 0x80 || c == '%' || c == '+') {
                return false;
            }
        }
        return true;
    }

    /** ASCII hexadecimal only: {@link Character#digit} would also accept other scripts' digits. */
    private static int hex(char c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        if (c >= 'A' && c <= 'F') {
            return c - 'A' + 10;
        }
        return -1;
    }
}
