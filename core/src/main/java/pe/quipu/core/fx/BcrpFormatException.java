package pe.quipu.core.fx;

/**
 * The body is not BCRP's JSON (the anti-bot HTML page served with status 200, HTML for an unknown code, or
 * JSON of another shape). An upstream failure like any other: it is retried and never cached.
 */
public class BcrpFormatException extends RatesUnavailableException {

    public BcrpFormatException(String message) {
        super(message);
    }

    public BcrpFormatException(String message, Throwable cause) {
        super(message, cause);
    }
}
