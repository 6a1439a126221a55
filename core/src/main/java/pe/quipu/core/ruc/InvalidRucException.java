package pe.quipu.core.ruc;

/**
 * A string that is not a RUC. The message names the one rule that failed, in a form fit to show an API caller
 * (it becomes the {@code detail} of a 400); {@link #rule()} lets code and tests tell the rules apart.
 */
public final class InvalidRucException extends IllegalArgumentException {

    /** The validation rules, checked in this order (contract §3). */
    public enum Rule {
        NOT_ELEVEN_DIGITS,
        UNKNOWN_PREFIX,
        WRONG_CHECK_DIGIT
    }

    private final Rule rule;

    InvalidRucException(Rule rule, String message) {
        super(message);
        this.rule = rule;
    }

    public Rule rule() {
        return rule;
    }
}
