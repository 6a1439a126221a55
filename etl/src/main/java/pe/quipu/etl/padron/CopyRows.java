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
        for (int i = 0, n = value.length(); i < n; i++) {
            char c = value.charAt(i);
            switch (c) {
                case '\\' -> {
                    put('\\');
                    put('\\');
                }
                case '\t' -> {
                    put('\\');
                    put('t');
                }
                case '\n' -> {
                    put('\\');
                    put('n');
                }
                case '\r' -> {
                    put('\\');
                    put('r');
                }
                default -> {
                    if (c < 0x80) {
                        put(c);
                    } else if (c < 0x800) {
                        put(0xC0 | (c >> 6));
                        put(0x80 | (c & 0x3F));
                    } else {
                        // Not from a Latin-1 file, but a String may hold it; surrogates are never produced here.
                        put(0xE0 | (c >> 12));
                        put(0x80 | ((c >> 6) & 0x3F));
                        put(0x80 | (c & 0x3F));
                    }
                }
            }
        }
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
