package pe.quipu.etl.padron;

import java.util.Arrays;

/**
 * Rows in PostgreSQL's COPY text format, encoded to UTF-8 (the connection's client encoding) straight into a
 * byte array: tab between fields, {@code \N} for null, backslash escapes, one row a line.
 */
final class CopyRows {

    private byte[] bytes;
    private int length;
    private boolean rowStarted;

    CopyRows(int capacity) {
        bytes = new byte[capacity];
    }

    int length() {
        return length;
    }

    byte[] bytes() {
        return bytes;
    }

    CopyRows field(String value) {
        separate();
        if (value == null) {
            put('\\');
            put('N');
            return this;
        }
        int n = value.length();
        // Room for the worst case (every char escaped or three UTF-8 bytes) once, not a check per byte.
        if (length + 3 * n > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, length + 3 * n));
        }
        byte[] b = bytes;
        int at = length;
        for (int i = 0; i < n; i++) {
            char c = value.charAt(i);
            if (c < 0x80) {
                switch (c) {
                    case '\\' -> {
                        b[at++] = '\\';
                        b[at++] = '\\';
                    }
                    case '\t' -> {
                        b[at++] = '\\';
                        b[at++] = 't';
                    }
                    case '\n' -> {
                        b[at++] = '\\';
                        b[at++] = 'n';
                    }
                    case '\r' -> {
                        b[at++] = '\\';
                        b[at++] = 'r';
                    }
                    default -> b[at++] = (byte) c;
                }
            } else if (c < 0x800) {
                b[at++] = (byte) (0xC0 | (c >> 6));
                b[at++] = (byte) (0x80 | (c & 0x3F));
            } else {
                // Not from a Latin-1 file, but a String may hold it; surrogates are never produced here.
                b[at++] = (byte) (0xE0 | (c >> 12));
                b[at++] = (byte) (0x80 | ((c >> 6) & 0x3F));
                b[at++] = (byte) (0x80 | (c & 0x3F));
            }
        }
        length = at;
        return this;
    }

    CopyRows field(long value) {
        return field(Long.toString(value));
    }

    void endRow() {
        put('\n');
        rowStarted = false;
    }

    private void separate() {
        if (rowStarted) {
            put('\t');
        }
        rowStarted = true;
    }

    private void put(int b) {
        if (length == bytes.length) {
            bytes = Arrays.copyOf(bytes, bytes.length * 2);
        }
        bytes[length++] = (byte) b;
    }
}
