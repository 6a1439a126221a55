package pe.quipu.etl.padron;

import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.postgresql.PGConnection;
import org.postgresql.copy.PGCopyInputStream;
import pe.quipu.core.ruc.Ruc;

import java.io.IOException;
import java.io.InputStream;
import java.sql.Connection;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.function.Consumer;

/**
 * The registry in service as a reload compares its file with it: each record's RUC and the fingerprint of the line
 * it was loaded from ({@code ruc_registry.line_hash}, {@link LineHash}), in memory, about 8 bytes a record. A line
 * of the file whose RUC is here with the same fingerprint is the line loaded before, byte for byte, so the record is
 * unchanged and the line need not even be parsed; only the other lines go to PostgreSQL. Which records no line of
 * the file named ({@link #forEachUnseen}) are the ones it removes.
 *
 * <p>A RUC's check digit follows from its first ten digits and its prefix is one of five, so the records are kept in
 * 50,000 buckets by prefix and the next four digits, each a sorted array of {@code key << 49 | fingerprint}: the
 * key is the following four digits, the fingerprint the line hash's top 49 bits. Two different lines of one RUC
 * share those bits with a chance of 2^-49 (1.8e-15): a daily 1 % of the real padrón's 18.3 M records would meet it
 * once in millions of years. A record whose line is unknown (another writer put it there) has fingerprint 0, which
 * no line has, so its line always goes to PostgreSQL.
 */
final class RegistryLines {

    /** Prefixes (10, 15, 16, 17, 20) times the four digits after them. */
    static final int BUCKETS = 5 * 10_000;
    /** Bits of a line's hash kept per record: the rest of a 64-bit entry is the key (four digits, under 2^14). */
    static final int FINGERPRINT_BITS = 49;
    /**
     * What the comparison holds per record at most while it is read (8 bytes an entry in arrays grown by an eighth,
     * and one seen bit), for deciding whether a registry fits in the heap.
     */
    static final double BYTES_PER_RECORD = 9.2;
    /** The heap a run needs beside the comparison: its framework, the parser, COPY's chunks. */
    static final long RESERVE = 64L << 20;
    private static final long FINGERPRINT_MASK = (1L << FINGERPRINT_BITS) - 1;
    private static final long[] EMPTY = new long[0];
    private static final byte[] SIGNATURE = {'P', 'G', 'C', 'O', 'P', 'Y', '\n', (byte) 0xFF, '\r', '\n', 0};

    private final long[][] buckets;
    /** Where each bucket's first record stands among all, for {@link #seen}. */
    private final int[] firstOf;
    private final long[] seen;
    private final int size;
    /** The entry {@link #find} found last. */
    private long last;

    private RegistryLines(long[][] buckets) {
        this.buckets = buckets;
        firstOf = new int[BUCKETS + 1];
        for (int b = 0; b < BUCKETS; b++) {
            firstOf[b + 1] = firstOf[b] + buckets[b].length;
        }
        size = firstOf[BUCKETS];
        seen = new long[(size + 63) >>> 6];
    }

    /**
     * Reads the registry in service's RUCs and line fingerprints over {@code parts} connections of {@code jdbi} at
     * once, each a COPY of two narrow columns from its share of the table's pages (a TID range scan), all in the
     * snapshot of the first one's transaction (exported to the others, as pg_dump's parallel jobs do): the same
     * records as one COPY would read, about 40 % sooner on two processors. A small table is read in one COPY.
     */
    static RegistryLines read(Jdbi jdbi, int parts) throws Exception {
        return read(jdbi, parts, MIN_PAGES_PER_PART);
    }

    /** As {@link #read(Jdbi, int)}, each part at least {@code minPagesPerPart} pages. */
    static RegistryLines read(Jdbi jdbi, int parts, long minPagesPerPart) throws Exception {
        try (Handle lead = jdbi.open()) {
            repeatableRead(lead);
            String snapshot = lead.select("select pg_export_snapshot()").mapTo(String.class).one();
            long pages = lead.select("select pg_relation_size('ruc_registry') / current_setting('block_size')::int")
                    .mapTo(Long.class).one();
            int n = (int) Math.max(1, Math.min(parts, pages / minPagesPerPart));
            List<FutureTask<Builder>> others = new ArrayList<>();
            for (int part = 1; part < n; part++) {
                String range = pages(part, n, pages);
                FutureTask<Builder> task = new FutureTask<>(() -> {
                    try (Handle handle = jdbi.open()) {
                        repeatableRead(handle);
                        handle.execute("set transaction snapshot '" + snapshot.replace("'", "''") + "'");
                        Builder builder = read(handle.getConnection(), range, new Builder());
                        handle.rollback();
                        return builder;
                    }
                });
                others.add(task);
                Thread.ofPlatform().name("registry-lines-" + part).daemon().start(task);
            }
            Builder builder;
            try {
                builder = read(lead.getConnection(), pages(0, n, pages), new Builder());
                for (FutureTask<Builder> other : others) {
                    builder.addAll(other.get());
                }
            } catch (ExecutionException e) {
                throw e.getCause() instanceof Exception cause ? cause : e;
            } finally {
                // A part that failed or was not waited for must not outlive the read.
                others.forEach(other -> other.cancel(true));
            }
            lead.rollback();
            return builder.build();
        }
    }

    /** Begins a repeatable-read transaction on {@code handle}: one snapshot for every statement of the read. */
    private static void repeatableRead(Handle handle) {
        handle.begin();
        handle.execute("set transaction isolation level repeatable read");
    }

    /**
     * Part {@code part} of {@code n} of a table of {@code pages} pages, as a condition on ctid (a TID range scan):
     * the first part has no lower bound and the last no upper one, so that pages added since the size was read are
     * read too.
     */
    static String pages(int part, int n, long pages) {
        List<String> bounds = new ArrayList<>(2);
        if (part > 0) {
            bounds.add("ctid >= '(" + pages * part / n + ",0)'");
        }
        if (part < n - 1) {
            bounds.add("ctid < '(" + pages * (part + 1) / n + ",0)'");
        }
        return bounds.isEmpty() ? "true" : String.join(" and ", bounds);
    }

    /** A part of {@link #read(Jdbi, int)} reads at least this many pages (64 MB): a smaller table is one COPY. */
    static final long MIN_PAGES_PER_PART = 8192;

    /** Adds to {@code builder} the registry's RUCs and line fingerprints where {@code condition} holds. */
    private static Builder read(Connection connection, String condition, Builder builder)
            throws SQLException, IOException {
        // Parsed from a buffer rather than through a DataInputStream: a call per field of 2 M rows was most of the
        // read's time. A row: field count (2), the RUC's length (11) and bytes, the hash's length (8 or -1 for null)
        // and bytes.
        try (InputStream in = new PGCopyInputStream(connection.unwrap(PGConnection.class),
                "copy (select ruc, line_hash from ruc_registry where " + condition
                        + ") to stdout with (format binary)")) {
            byte[] buffer = new byte[1 << 16];
            int length = in.readNBytes(buffer, 0, SIGNATURE.length + 8);
            if (length < SIGNATURE.length + 8 || !Arrays.equals(buffer, 0, SIGNATURE.length, SIGNATURE, 0,
                    SIGNATURE.length)) {
                throw new IOException("not PostgreSQL's binary COPY format");
            }
            in.skipNBytes(intAt(buffer, SIGNATURE.length + 4)); // header extension
            int position = 0;
            length = 0;
            while (true) {
                if (length - position < ROW) {
                    // Room for a whole row: what is left moves to the front, and more is read after it.
                    System.arraycopy(buffer, position, buffer, 0, length - position);
                    length -= position;
                    position = 0;
                    int n = in.readNBytes(buffer, length, buffer.length - length);
                    length += n;
                    if (length - position < 2) {
                        throw new IOException("the registry's COPY ended early");
                    }
                }
                short fields = (short) ((buffer[position] & 0xFF) << 8 | buffer[position + 1] & 0xFF);
                if (fields == -1) {
                    break;
                }
                if (length - position < ROW - 8 || fields != 2 || intAt(buffer, position + 2) != 11) {
                    throw new IOException("unexpected row in the registry's COPY");
                }
                int hashLength = intAt(buffer, position + 17);
                if (hashLength < 0) {
                    builder.addWithoutLine(buffer, position + 6);
                    position += ROW - 8;
                } else {
                    if (hashLength != 8 || length - position < ROW) {
                        throw new IOException("unexpected row in the registry's COPY");
                    }
                    builder.add(buffer, position + 6, longAt(buffer, position + 21));
                    position += ROW;
                }
            }
        }
        return builder;
    }

    /** A row of the registry's COPY with a hash: 2 + 4 + 11 + 4 + 8 bytes. */
    private static final int ROW = 29;

    private static int intAt(byte[] b, int at) {
        return (b[at] & 0xFF) << 24 | (b[at + 1] & 0xFF) << 16 | (b[at + 2] & 0xFF) << 8 | b[at + 3] & 0xFF;
    }

    private static long longAt(byte[] b, int at) {
        return (long) intAt(b, at) << 32 | intAt(b, at + 4) & 0xFFFFFFFFL;
    }

    /** Collects the records in any order; {@link #build} sorts each bucket. */
    static final class Builder {
        private final long[][] buckets = new long[BUCKETS][];
        private final int[] counts = new int[BUCKETS];

        Builder() {
            Arrays.fill(buckets, EMPTY);
        }

        /** The record of the RUC in the first 11 bytes of {@code ruc}, loaded from a line with hash {@code lineHash}. */
        Builder add(byte[] ruc, long lineHash) {
            return add(ruc, 0, lineHash);
        }

        /** The record of the RUC in the first 11 bytes of {@code ruc}, whose line is not known. */
        Builder addWithoutLine(byte[] ruc) {
            return addWithoutLine(ruc, 0);
        }

        /** As {@link #add(byte[], long)}, the RUC at {@code offset}. */
        Builder add(byte[] ruc, int offset, long lineHash) {
            return put(ruc, offset, fingerprint(lineHash));
        }

        /** As {@link #addWithoutLine(byte[])}, the RUC at {@code offset}. */
        Builder addWithoutLine(byte[] ruc, int offset) {
            return put(ruc, offset, 0);
        }

        private Builder put(byte[] ruc, int offset, long fingerprint) {
            int bucket = bucket(ruc, offset);
            if (bucket < 0) {
                throw new IllegalArgumentException("the registry holds a record whose RUC is not valid: "
                        + new String(ruc, offset, Math.min(ruc.length - offset, 11), StandardCharsets.ISO_8859_1));
            }
            long[] entries = buckets[bucket];
            int n = counts[bucket];
            if (n == entries.length) {
                // By an eighth: the bucket's slack is what a registry of millions leaves unused in the heap.
                entries = Arrays.copyOf(entries, Math.max(4, n + (n >> 3) + 1));
                buckets[bucket] = entries;
            }
            entries[n] = (long) key(ruc, offset) << FINGERPRINT_BITS | fingerprint;
            counts[bucket] = n + 1;
            return this;
        }

        /** Adds what {@code other} collected (another part of the registry: each RUC in one part only). */
        Builder addAll(Builder other) {
            for (int b = 0; b < BUCKETS; b++) {
                int n = counts[b];
                int more = other.counts[b];
                if (more == 0) {
                    continue;
                }
                if (n + more > buckets[b].length) {
                    buckets[b] = Arrays.copyOf(buckets[b], n + more);
                }
                System.arraycopy(other.buckets[b], 0, buckets[b], n, more);
                counts[b] = n + more;
                // Let go of the other part's array at once: the two parts never take more heap than the whole.
                other.buckets[b] = EMPTY;
                other.counts[b] = 0;
            }
            return this;
        }

        RegistryLines build() {
            for (int b = 0; b < BUCKETS; b++) {
                long[] entries = counts[b] == buckets[b].length ? buckets[b]
                        : counts[b] == 0 ? EMPTY : Arrays.copyOf(buckets[b], counts[b]);
                Arrays.sort(entries);
                buckets[b] = entries;
            }
            return new RegistryLines(buckets);
        }
    }

    /** The heap the comparison of a registry of {@code records} needs at most. */
    static long heapNeeded(long records) {
        return (long) (records * BYTES_PER_RECORD) + ((long) BUCKETS << 5);
    }

    /**
     * Whether a registry of {@code records} is compared in memory within {@code maxHeap} bytes of heap: always when
     * that needs no more than staging every line does (its set of the RUCs seen, {@link RucSet#BYTES}), otherwise
     * when the heap has room for it beside the run.
     */
    static boolean fits(long records, long maxHeap) {
        long needed = heapNeeded(records);
        return needed <= RucSet.BYTES || needed + RESERVE <= maxHeap;
    }

    /** Records held. */
    int size() {
        return size;
    }

    /**
     * The position of the record whose RUC is the 11 bytes of {@code line} at {@code offset}, or -1 when those bytes
     * are no RUC of the registry (not digits, another prefix, no such record). The check digit is not compared:
     * only a line whose fingerprint matches is taken as known ({@link #sameLine}), and its bytes hold the same check
     * digit. One thread's: {@link #sameLine} compares with the record found last.
     */
    int find(byte[] line, int offset) {
        int bucket = bucket(line, offset);
        if (bucket < 0) {
            return -1;
        }
        long[] entries = buckets[bucket];
        int key = key(line, offset);
        int low = 0;
        int high = entries.length - 1;
        while (low <= high) {
            int middle = (low + high) >>> 1;
            int found = (int) (entries[middle] >>> FINGERPRINT_BITS);
            if (found < key) {
                low = middle + 1;
            } else if (found > key) {
                high = middle - 1;
            } else {
                last = entries[middle];
                return firstOf[bucket] + middle;
            }
        }
        return -1;
    }

    /** Whether the record {@link #find} found last was loaded from a line with hash {@code lineHash}. */
    boolean sameLine(long lineHash) {
        return (last & FINGERPRINT_MASK) == fingerprint(lineHash);
    }

    boolean seen(int position) {
        return (seen[position >>> 6] & (1L << position)) != 0;
    }

    /** The file has a line for the record at {@code position}. */
    void see(int position) {
        seen[position >>> 6] |= 1L << position;
    }

    /** The RUC of every record the file had no line for, in RUC order. */
    void forEachUnseen(Consumer<String> ruc) {
        StringBuilder digits = new StringBuilder(10);
        for (int b = 0; b < BUCKETS; b++) {
            long[] entries = buckets[b];
            for (int i = 0; i < entries.length; i++) {
                if (!seen(firstOf[b] + i)) {
                    digits.setLength(0);
                    digits.append(PREFIXES[b / 10_000]);
                    appendDigits(digits, b % 10_000);
                    appendDigits(digits, (int) (entries[i] >>> FINGERPRINT_BITS));
                    ruc.accept(Ruc.completing(digits.toString()).value());
                }
            }
        }
    }

    /** The fingerprint kept of a line's 64-bit hash: its top bits, never 0 (which marks an unknown line). */
    static long fingerprint(long lineHash) {
        long fingerprint = lineHash >>> (Long.SIZE - FINGERPRINT_BITS);
        return fingerprint == 0 ? 1 : fingerprint;
    }

    private static final String[] PREFIXES = {"10", "15", "16", "17", "20"};

    /**
     * The bucket of the RUC-shaped 11 bytes at {@code offset}: its prefix's rank times 10,000 plus its next four
     * digits; -1 when they are not 11 ASCII digits with one of the five prefixes.
     */
    static int bucket(byte[] bytes, int offset) {
        if (offset + 11 > bytes.length) {
            return -1;
        }
        for (int i = offset; i < offset + 11; i++) {
            if (bytes[i] < '0' || bytes[i] > '9') {
                return -1;
            }
        }
        int prefix = switch ((bytes[offset] - '0') * 10 + bytes[offset + 1] - '0') {
            case 10 -> 0;
            case 15 -> 1;
            case 16 -> 2;
            case 17 -> 3;
            case 20 -> 4;
            default -> -1;
        };
        return prefix < 0 ? -1 : prefix * 10_000 + digits(bytes, offset + 2);
    }

    /** The key of RUC-shaped bytes within their bucket: the four digits after the bucket's. */
    static int key(byte[] bytes, int offset) {
        return digits(bytes, offset + 6);
    }

    private static int digits(byte[] bytes, int offset) {
        return (bytes[offset] - '0') * 1000 + (bytes[offset + 1] - '0') * 100 + (bytes[offset + 2] - '0') * 10
                + bytes[offset + 3] - '0';
    }

    private static void appendDigits(StringBuilder to, int fourDigits) {
        to.append((char) ('0' + fourDigits / 1000)).append((char) ('0' + fourDigits / 100 % 10))
                .append((char) ('0' + fourDigits / 10 % 10)).append((char) ('0' + fourDigits % 10));
    }
}
