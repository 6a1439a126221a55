package pe.quipu.etl.source;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;

/**
 * The lines of a source file, LF or CRLF terminated, without their terminator, each at most {@link #MAX_LINE_BYTES}
 * bytes. No line of SUNAT's files comes near it (a padrón line is a few hundred bytes); a file with a longer one, or
 * with no line end at all, is damaged or not what it claims, and reading it stops with {@link LineTooLongException}
 * instead of holding an ever larger line in memory.
 *
 * <p>Faster than a {@code BufferedReader} over an {@code InputStreamReader}: for ISO-8859-1 ({@link #latin1}) a byte
 * is its own char, so each line becomes a (compact) String by a plain copy, with no charset decoder in the way of
 * 18 million lines. {@link #utf8} decodes each line on its own, a malformed sequence read as U+FFFD.
 */
public final class SourceLines {

    /** 64 KiB, without the line's terminator. */
    public static final int MAX_LINE_BYTES = 1 << 16;

    private final InputStream in;
    private final Charset charset;
    /** Room for a longest line, its CR and LF, and the next read. */
    private final byte[] buffer = new byte[2 * MAX_LINE_BYTES];
    private int start;
    private int end;
    private int lineStart;
    private int lineLength;
    private boolean eof;
    private long lineNumber;

    private SourceLines(InputStream in, Charset charset) {
        this.in = in;
        this.charset = charset;
    }

    /** SUNAT's padrón and lists: ISO-8859-1. */
    public static SourceLines latin1(InputStream in) {
        return new SourceLines(in, StandardCharsets.ISO_8859_1);
    }

    /** SUNAT's open-data CSVs: UTF-8. */
    public static SourceLines utf8(InputStream in) {
        return new SourceLines(in, StandardCharsets.UTF_8);
    }

    /**
     * The next line, or null at the end of the stream. A last line without a terminator is returned too.
     *
     * @throws LineTooLongException for a line over {@link #MAX_LINE_BYTES} bytes
     */
    public String next() throws IOException {
        return advance() ? line() : null;
    }

    /**
     * Moves to the next line, whose bytes {@link #bytes()} holds from {@link #start()} for {@link #length()} bytes
     * until the next call: a reader that decides from a line's bytes whether it needs its text at all
     * ({@link #line()}) makes no String of the others. False at the end of the stream.
     *
     * @throws LineTooLongException for a line over {@link #MAX_LINE_BYTES} bytes
     */
    public boolean advance() throws IOException {
        int scanFrom = start;
        while (true) {
            for (int i = scanFrom; i < end; i++) {
                if (buffer[i] == '\n') {
                    take(i > start && buffer[i - 1] == '\r' ? i - 1 : i, i + 1);
                    return true;
                }
            }
            if (eof) {
                if (start == end) {
                    return false;
                }
                take(buffer[end - 1] == '\r' ? end - 1 : end, end);
                return true;
            }
            // No line end among the bytes so far: past the longest line and its CR, this line is too long.
            if (end - start > MAX_LINE_BYTES + 1) {
                throw new LineTooLongException(lineNumber + 1);
            }
            scanFrom = end - start; // where the scan goes on once fill() has moved the line to the front
            fill();
        }
    }

    /** The buffer that holds the current line's bytes (valid until the next {@link #advance}). */
    public byte[] bytes() {
        return buffer;
    }

    /** Where the current line starts in {@link #bytes()}. */
    public int start() {
        return lineStart;
    }

    /** The current line's length in bytes, without its terminator. */
    public int length() {
        return lineLength;
    }

    /** The current line's text. */
    public String line() {
        return new String(buffer, lineStart, lineLength, charset);
    }

    /** The 1-based number of the line {@link #next} returned last (0 before the first). */
    public long lineNumber() {
        return lineNumber;
    }

    private void take(int lineEnd, int next) {
        lineNumber++;
        if (lineEnd - start > MAX_LINE_BYTES) {
            throw new LineTooLongException(lineNumber);
        }
        lineStart = start;
        lineLength = lineEnd - start;
        start = next;
    }

    private void fill() throws IOException {
        if (start > 0) {
            System.arraycopy(buffer, start, buffer, 0, end - start);
            end -= start;
            start = 0;
        }
        int n = in.read(buffer, end, buffer.length - end);
        if (n < 0) {
            eof = true;
        } else {
            end += n;
        }
    }

    /** A line over {@link #MAX_LINE_BYTES}: the file is damaged or not what it claims, and the run fails. */
    public static final class LineTooLongException extends IllegalStateException {
        LineTooLongException(long lineNumber) {
            super("line " + lineNumber + " is over " + MAX_LINE_BYTES + " bytes: the file is damaged or not the one"
                    + " expected");
        }
    }
}
