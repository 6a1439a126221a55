package pe.quipu.api.testing;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * Everything written to standard error while it is open, copied for the test to read and still written through.
 * Quipu's logs, the request log included, go to standard error (config.yml), and logback's console appenders look
 * up {@code System.err} on every write, so this sees exactly what an operator's log would hold.
 *
 * <pre>{@code
 * try (StandardErrorTee log = StandardErrorTee.open()) { ...; assertThat(log.text()).doesNotContain(key); }
 * }</pre>
 */
public final class StandardErrorTee implements AutoCloseable {

    private final PrintStream original;
    private final ByteArrayOutputStream copy = new ByteArrayOutputStream();

    private StandardErrorTee() {
        original = System.err;
        System.setErr(new PrintStream(new OutputStream() {
            @Override
            public void write(int b) {
                synchronized (copy) {
                    copy.write(b);
                }
                original.write(b);
            }

            @Override
            public void write(byte[] bytes, int offset, int length) {
                synchronized (copy) {
                    copy.write(bytes, offset, length);
                }
                original.write(bytes, offset, length);
            }

            @Override
            public void flush() {
                original.flush();
            }
        }, true, StandardCharsets.UTF_8));
    }

    public static StandardErrorTee open() {
        return new StandardErrorTee();
    }

    /** What was written so far. */
    public String text() {
        synchronized (copy) {
            return copy.toString(StandardCharsets.UTF_8);
        }
    }

    @Override
    public void close() {
        System.err.flush();
        System.setErr(original);
    }
}
