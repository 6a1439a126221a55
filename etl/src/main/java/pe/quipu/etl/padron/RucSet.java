package pe.quipu.etl.padron;

/**
 * Which RUCs a load has seen, as one bit per possible RUC: the check digit follows from the first ten digits
 * and the prefix is one of five, so 5 × 10^8 bits (62.5 MB) cover every valid RUC, whatever the file's size,
 * well within a 512 MB heap, where a hash set of 18 million numbers would not be.
 */
final class RucSet {

    /** The set's size: one bit per possible RUC. */
    static final long BYTES = (5L * 100_000_000L + 63) / 64 * Long.BYTES;

    private final long[] bits = new long[(int) (BYTES / Long.BYTES)];

    /** Adds the RUC (already validated) and tells whether it was there before. */
    boolean addAndCheck(String ruc) {
        int prefix = switch (ruc.charAt(0) * 10 + ruc.charAt(1) - 11 * '0') {
            case 10 -> 0;
            case 15 -> 1;
            case 16 -> 2;
            case 17 -> 3;
            case 20 -> 4;
            default -> throw new IllegalArgumentException("not a valid RUC prefix: " + ruc);
        };
        long middle = 0;
        for (int i = 2; i < 10; i++) {
            middle = middle * 10 + (ruc.charAt(i) - '0');
        }
        long index = prefix * 100_000_000L + middle;
        int word = (int) (index >>> 6);
        long mask = 1L << (index & 63);
        boolean seen = (bits[word] & mask) != 0;
        bits[word] |= mask;
        return seen;
    }
}
