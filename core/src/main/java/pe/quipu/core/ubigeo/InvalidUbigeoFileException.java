package pe.quipu.core.ubigeo;

/** A ubigeo catalogue file that must not be loaded; the message says which row or code and why. */
public final class InvalidUbigeoFileException extends RuntimeException {

    public InvalidUbigeoFileException(String message) {
        super(message);
    }

    public InvalidUbigeoFileException(String message, Throwable cause) {
        super(message, cause);
    }
}
