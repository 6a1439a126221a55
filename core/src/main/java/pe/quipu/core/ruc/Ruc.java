package pe.quipu.core.ruc;

/**
 * A Peruvian taxpayer number (RUC) that passed every rule: exactly 11 ASCII digits, a prefix of 10, 15, 16, 17
 * or 20, and the SUNAT módulo-11 check digit. Holding a {@code Ruc} is proof of validity, so the constructor
 * enforces the same rules as {@link #parse}.
 */
public record Ruc(String value) {

    /** Weights SUNAT applies to the first ten digits. */
    private static final int[] WEIGHTS = {5, 4, 3, 2, 7, 6, 5, 4, 3, 2};

    public Ruc {
        validate(value);
    }

    /** Returns the RUC or throws {@link InvalidRucException} naming the rule that failed. */
    public static Ruc parse(String text) {
        return new Ruc(text);
    }

    /**
     * The RUC these ten digits begin, with the check digit SUNAT expects after them; throws
     * {@link InvalidRucException} when they are not ten ASCII digits with a known prefix.
     */
    public static Ruc completing(String firstTen) {
        if (firstTen == null || firstTen.length() != 10 || !asciiDigits(firstTen)) {
            throw new InvalidRucException(InvalidRucException.Rule.NOT_ELEVEN_DIGITS,
                    "the start of a RUC is 10 digits (0-9)");
        }
        return new Ruc(firstTen + checkDigit(firstTen));
    }

    /** The check digit SUNAT expects after these ten digits; callers guarantee ten ASCII digits. */
    static int checkDigit(CharSequence firstTen) {
        int sum = 0;
        for (int i = 0; i < WEIGHTS.length; i++) {
            sum += (firstTen.charAt(i) - '0') * WEIGHTS[i];
        }
        int r = 11 - (sum % 11);
        // r is 1..11; 10 and 11 do not fit in one digit and fold to 0 and 1.
        return r == 10 ? 0 : r == 11 ? 1 : r;
    }

    private static void validate(String text) {
        if (text == null || text.length() != 11 || !asciiDigits(text)) {
            throw new InvalidRucException(InvalidRucException.Rule.NOT_ELEVEN_DIGITS,
                    "a RUC is exactly 11 digits (0-9)" + (text == null ? "" : ", got " + describe(text)));
        }
        String prefix = text.substring(0, 2);
        switch (prefix) {
            case "10", "15", "16", "17", "20" -> {
            }
            default -> throw new InvalidRucException(InvalidRucException.Rule.UNKNOWN_PREFIX,
                    "a RUC starts with 10, 15, 16, 17 or 20, not " + prefix);
        }
        int expected = checkDigit(text);
        int actual = text.charAt(10) - '0';
        if (expected != actual) {
            throw new InvalidRucException(InvalidRucException.Rule.WRONG_CHECK_DIGIT,
                    "wrong check digit: the módulo-11 check digit of " + text.substring(0, 10) + " is " + expected
                            + ", not " + actual);
        }
    }

    // Character.isDigit would let Arabic-Indic and other Unicode digits through.
    private static boolean asciiDigits(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    // The input goes back to the caller in the message; describe it rather than reflect arbitrary text.
    private static String describe(String text) {
        int n = text.length();
        return asciiDigits(text)
                ? n + (n == 1 ? " digit" : " digits")
                : n + (n == 1 ? " character" : " characters") + " including a non-digit";
    }

    /** The eleven digits, so that a Ruc prints and binds as the number itself. */
    @Override
    public String toString() {
        return value;
    }
}
