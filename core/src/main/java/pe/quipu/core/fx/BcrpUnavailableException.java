package pe.quipu.core.fx;

/** BCRP did not give a usable answer: no connection, a timeout, a non-2xx status, or a body that is not its JSON. */
public class BcrpUnavailableException extends RuntimeException {

    public BcrpUnavailableException(String message) {
        super(message);
    }

    public BcrpUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
