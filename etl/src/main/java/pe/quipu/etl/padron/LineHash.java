package pe.quipu.etl.padron;

import com.dynatrace.hash4j.hashing.Hasher64;
import com.dynatrace.hash4j.hashing.Hashing;

/**
 * The fingerprint of a padrón line as the file has it (its Latin-1 bytes, without the line's end): their XXH3 64-bit
 * hash, kept as {@code ruc_registry.line_hash}. The next load compares its lines' fingerprints with these
 * ({@link RegistryLines}) and parses only the lines that are not byte for byte the ones loaded before. XXH3 because it
 * hashes a line in a few nanoseconds and its bits are as good as random for any text that is not built against it,
 * which the chance of two lines of one RUC sharing a fingerprint relies on; SUNAT writes the file, nobody who could
 * aim at a collision, and a collision would only leave one record as it was for a day. Not a security measure.
 *
 * <p>Until December 2026 the fingerprint was the first 8 bytes of the line's MD5, which took about a third of a
 * reload's reading (docs/decisions.md, "The line fingerprint: XXH3"). A registry loaded then keeps MD5 fingerprints
 * until its next load, which finds no line as loaded, stages and compares every line in the database (slower, once),
 * and records nothing for the records whose content did not change: only their fingerprints are rewritten.
 */
final class LineHash {

    private static final Hasher64 XXH3 = Hashing.xxh3_64();

    long of(byte[] bytes, int offset, int length) {
        return XXH3.hashBytesToLong(bytes, offset, length);
    }
}
