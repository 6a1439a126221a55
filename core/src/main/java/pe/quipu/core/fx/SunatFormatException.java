package pe.quipu.core.fx;

/**
 * SUNAT's answer is not what its {@code listarTipoCambio} publication looks like (contract §12): not a JSON array
 * (an HTML page), an entry of another shape, a value that is not a positive number with at most 3 decimals, a date
 * outside the month asked for, or no rate at all for a month that should have rates. An upstream failure like any
 * other: it is retried and never cached.
 */
public class SunatFormatException extends RatesUnavailableException {

    public SunatFormatException(String message) {
        super(message);
    }

    public SunatFormatException(String message, Throwable cause) {
        super(message, cause);
    }
}
