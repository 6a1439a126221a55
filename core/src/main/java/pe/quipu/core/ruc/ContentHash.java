package pe.quipu.core.ruc;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * A 64-bit fingerprint of what the padrón publishes for one RUC (name, estado, condición, ubigeo and the ten
 * address parts), stored in {@code ruc_registry.content_hash}. A reload compares this one column instead of
 * fourteen to tell an unchanged record (which keeps its {@code actualizado} and ETag) from a changed one.
 *
 * <p>It is the first 8 bytes of the MD5 of the fields joined by U+001F, each null field written as U+001E,
 * in UTF-8, so that PostgreSQL computes the same value with {@link #SQL} (the migration backfills with it).
 * Not a security measure: only two versions of the same RUC are ever compared.
 */
public final class ContentHash {

    private static final char SEPARATOR = '\u001f';
    private static final char NULL = '\u001e';

    /** The same fingerprint over ruc_registry's columns, in SQL. */
    public static final String SQL = "('x' || left(md5("
            + RegistryColumns.each(column -> "coalesce(" + column + ", chr(30))", " || chr(31) || ")
            + "), 16))::bit(64)::bigint";

    /** The fields hashed: {@link RegistryColumns#LIST}, in its order. */
    public static final int FIELDS = RegistryColumns.LIST.size();

    private final MessageDigest md5;
    private byte[] bytes = new byte[512];
    private int length;
    private final int[] fieldStart = new int[FIELDS];
    private final int[] fieldLength = new int[FIELDS];
    private int field;

    /** One per thread: it reuses its digest and buffer across the millions of records of a load. */
    public ContentHash() {
        try {
            md5 = MessageDigest.getInstance("MD5");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has MD5", e);
        }
    }

    public long of(PadronRecord r) {
        Address a = r.address();
        length = 0;
        field = 0;
        // RegistryColumns' order, spelled out: the loop over millions of records allocates nothing.
        add(r.razonSocial()).add(r.estado()).add(r.condicion()).add(r.ubigeo()).add(a.tipoVia())
                .add(a.nombreVia()).add(a.codigoZona()).add(a.tipoZona()).add(a.numero()).add(a.interior())
                .add(a.lote()).add(a.departamento()).add(a.manzana()).add(a.kilometro());
        length--; // the separator after the last field
        // The UTF-8 bytes go to the digest straight from one reused buffer: a load hashes millions of records,
        // and building a String and encoding it for each was a third of the parsing thread's time.
        md5.update(bytes, 0, length);
        byte[] digest = md5.digest();
        return ByteBuffer.wrap(digest).getLong();
    }

    /**
     * The UTF-8 bytes of the last record's fields as hashed, so that a writer needing them (the padron job's
     * binary COPY) does not encode them again: field {@code i} is {@code fieldLength(i)} bytes of {@link #buffer()}
     * from {@code fieldStart(i)}, or null when its length is -1. Valid until the next {@link #of}.
     */
    public byte[] buffer() {
        return bytes;
    }

    public int fieldStart(int i) {
        return fieldStart[i];
    }

    public int fieldLength(int i) {
        return fieldLength[i];
    }

    private ContentHash add(String value) {
        if (value == null) {
            fieldStart[field] = length;
            fieldLength[field++] = -1;
            put(NULL);
            put(SEPARATOR);
            return this;
        }
        int n = value.length();
        // Room for the worst case (four UTF-8 bytes a char) once, not a check per byte.
        if (length + 4 * n + 1 > bytes.length) {
            bytes = java.util.Arrays.copyOf(bytes, Math.max(bytes.length * 2, length + 4 * n + 1));
        }
        byte[] b = bytes;
        int at = length;
        for (int i = 0; i < n; ) {
            int c = value.charAt(i);
            if (c < 0x80) {
                b[at++] = (byte) c;
                i++;
                continue;
            }
            c = value.codePointAt(i);
            i += Character.charCount(c);
            if (c < 0x800) {
                b[at++] = (byte) (0xC0 | (c >> 6));
                b[at++] = (byte) (0x80 | (c & 0x3F));
            } else if (c < 0x10000) {
                b[at++] = (byte) (0xE0 | (c >> 12));
                b[at++] = (byte) (0x80 | ((c >> 6) & 0x3F));
                b[at++] = (byte) (0x80 | (c & 0x3F));
            } else {
                b[at++] = (byte) (0xF0 | (c >> 18));
                b[at++] = (byte) (0x80 | ((c >> 12) & 0x3F));
                b[at++] = (byte) (0x80 | ((c >> 6) & 0x3F));
                b[at++] = (byte) (0x80 | (c & 0x3F));
            }
        }
        fieldStart[field] = length;
        fieldLength[field++] = at - length;
        b[at++] = (byte) SEPARATOR;
        length = at;
        return this;
    }

    private void put(int b) {
        if (length == bytes.length) {
            bytes = java.util.Arrays.copyOf(bytes, bytes.length * 2);
        }
        bytes[length++] = (byte) b;
    }

    /** The fingerprint of one record, for callers that hash a handful. */
    public static long hash(PadronRecord record) {
        return new ContentHash().of(record);
    }
}
