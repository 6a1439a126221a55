package pe.quipu.api.domain;

import pe.quipu.core.ruc.InvalidRucException;
import pe.quipu.core.ruc.Ruc;

/**
 * Why a string is not a RUC, as a {@link Text} a caller reads in their language: the rule {@link Ruc#parse} found
 * broken (contract §3), with the facts that show it (how many characters, the prefix, the expected check digit).
 * The input itself is described, never repeated, as core's English message does.
 */
public final class RucFaults {

    private RucFaults() {
    }

    /** The fault of {@code text}, which {@link Ruc#parse} refused with {@code refusal}. */
    public static Text of(String text, InvalidRucException refusal) {
        return switch (refusal.rule()) {
            case NOT_ELEVEN_DIGITS -> {
                if (text == null) {
                    yield Text.of("domain.ruc.eleven_digits");
                }
                int n = text.length();
                boolean digits = text.chars().allMatch(c -> c >= '0' && c <= '9');
                String got = digits ? (n == 1 ? "domain.ruc.got_one_digit" : "domain.ruc.got_digits")
                        : (n == 1 ? "domain.ruc.got_one_character" : "domain.ruc.got_characters");
                yield Text.of("domain.ruc.eleven_digits_got", Text.of(got, n));
            }
            case UNKNOWN_PREFIX -> Text.of("domain.ruc.unknown_prefix", text.substring(0, 2));
            case WRONG_CHECK_DIGIT -> Text.of("domain.ruc.wrong_check_digit", text.substring(0, 10),
                    Ruc.completing(text.substring(0, 10)).value().charAt(10), text.charAt(10));
        };
    }
}
