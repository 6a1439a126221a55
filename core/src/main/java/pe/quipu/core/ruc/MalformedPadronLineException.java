package pe.quipu.core.ruc;

/**
 * A padrón line that cannot be read. The message is the reason, without the line itself, so that a loader can
 * log it next to the line number and count rejects by reason.
 */
public final class MalformedPadronLineException extends IllegalArgumentException {

    MalformedPadronLineException(String reason) {
        super(reason);
    }

    MalformedPadronLineException(String reason, Throwable cause) {
        super(reason, cause);
    }
}
