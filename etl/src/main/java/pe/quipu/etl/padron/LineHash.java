package pe.quipu.etl.padron;

import java.security.DigestException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The fingerprint of a padrón line as the file has it (its Latin-1 bytes, without the line's end): the first 8 bytes
 * of their MD5, kept as {@code ruc_registry.line_hash}. The next load compares its lines' fingerprints with these
 * ({@link RegistryLines}) and parses only the lines that are not byte for byte the ones loaded before. MD5 because
 * the JDK computes it fast (an intrinsic) and its bits are as good as random, which the chance of two lines of one RUC
 * sharing a fingerprint relies on; not a security measure.
 */
final class LineHash {

    private final MessageDigest md5;
    private final byte[] digest = new byte[16];

    /** One per thread: it reuses its digest across the millions of lines of a load. */
    LineHash() {
        try {
            md5 = MessageDigest.getInstance("MD5");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has MD5", e);
        }
    }

    long of(byte[] bytes, int offset, int length) {
        md5.update(bytes, offset, length);
        try {
            md5.digest(digest, 0, digest.length);
        } catch (DigestException e) {
            throw new IllegalStateException("a 16-byte buffer holds an MD5", e);
        }
        long hash = 0;
        for (int i = 0; i < Long.BYTES; i++) {
            hash = hash << 8 | (digest[i] & 0xFF);
        }
        return hash;
    }
}
