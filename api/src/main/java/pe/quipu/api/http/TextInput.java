package pe.quipu.api.http;

import pe.quipu.api.domain.Text;

import java.text.Normalizer;

/**
 * The rule every text input meets where it enters (JSON members, operator task parameters): no control character
 * (C0, DEL, C1), no lone surrogate, no Unicode non-character. Such text has no honest use in an email, a name or a
 * parameter, and PostgreSQL refuses NUL outright.
 */
public final class TextInput {

    private TextInput() {
    }

    /** Why {@code text} is refused, or null when it is acceptable. */
    public static Text fault(String text) {
        for (int i = 0; i < text.length(); ) {
            char c = text.charAt(i);
            if (Character.isHighSurrogate(c)) {
                if (i + 1 >= text.length() || !Character.isLowSurrogate(text.charAt(i + 1))) {
                    return Text.of("http.text.lone_surrogate");
                }
                int cp = Character.toCodePoint(c, text.charAt(i + 1));
                if (isNonCharacter(cp)) {
                    return Text.of("http.text.noncharacter");
                }
                i += 2;
                continue;
            }
            if (Character.isLowSurrogate(c)) {
                return Text.of("http.text.lone_surrogate");
            }
            if (c < 0x20 || (c >= 0x7F && c <= 0x9F)) {
                return Text.of("http.text.control_character");
            }
            if (isNonCharacter(c)) {
                return Text.of("http.text.noncharacter");
            }
            i++;
        }
        return null;
    }

    /** A name as stored: stripped and in Unicode normalisation form C, so one name has one spelling. */
    public static String name(String text) {
        return Normalizer.normalize(text.strip(), Normalizer.Form.NFC);
    }

    private static boolean isNonCharacter(int cp) {
        return (cp >= 0xFDD0 && cp <= 0xFDEF) || (cp & 0xFFFE) == 0xFFFE;
    }
}
