package pe.quipu.etl.padron;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Lines of an ISO-8859-1 stream, LF or CRLF terminated, without their terminator. Faster than a
 * {@code BufferedReader} over an {@code InputStreamReader}: a Latin-1 byte is its own char, so each line becomes
 * a (compact) String by a plain copy, with no charset decoder in the way of 18 million lines.
 */
public final class LatinLines {

    private final InputStream in;
    private byte[] buffer = new byte[1 << 16];
    private int start;
    private int end;
    private boolean eof;

    public LatinLines(InputStream in) {
        this.in = in;
    }

    /** The next line, or null at the end of the stream. A last line without a terminator is returned too. */
    public String next() throws IOException {
        int scanFrom = start;
        while (true) {
            for (int i = scanFrom; i < end; i++) {
                if (buffer[i] == '\n') {
                    int lineEnd = i > start && buffer[i - 1] == '\r' ? i - 1 : i;
                    String line = new String(buffer, start, lineEnd - start, StandardCharsets.ISO_8859_1);
                    start = i + 1;
                    return line;
                }
            }
            if (eof) {
                if (start == end) {
                    return null;
                }
                int lineEnd = buffer[end - 1] == '\r' ? end - 1 : end;
                String line = new String(buffer, start, lineEnd - start, StandardCharsets.ISO_8859_1);
                start = end;
                return line;
            }
            scanFrom = end - start;
            fill();
        }
    }

    private void fill() throws IOException {
        if (start > 0) {
            System.arraycopy(buffer, start, buffer, 0, end - start);
            end -= start;
            start = 0;
        }
        if (end == buffer.length) {
            // A line longer than the buffer: no real padrón line is, but a broken file must not stop the reader.
            buffer = Arrays.copyOf(buffer, buffer.length * 2);
        }
        int n = in.read(buffer, end, buffer.length - end);
        if (n < 0) {
            eof = true;
        } else {
            end += n;
        }
    }
}
