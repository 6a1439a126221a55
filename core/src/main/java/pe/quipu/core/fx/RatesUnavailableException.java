package pe.quipu.core.fx;

/**
 * A source of rates (BCRP, SUNAT) did not give a usable answer: no connection, a timeout, a non-2xx status, or a
 * body that is not its format. Retried, and never cached.
 */
public class RatesUnavailableException extends RuntimeException {

    public RatesUnavailableException(String message) {
        super(message);
    }

    public RatesUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
