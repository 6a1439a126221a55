package pe.quipu.etl.generate;

import pe.quipu.core.ruc.Direccion;
import pe.quipu.core.ruc.MalformedPadronLineException;
import pe.quipu.core.ruc.PadronLine;
import pe.quipu.core.ruc.PadronRecord;
import pe.quipu.core.ruc.Ruc;
import pe.quipu.etl.source.SourceFile;
import pe.quipu.etl.source.SourceLines;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * The next day's padrón of an earlier one ({@code ./quipu generate-padron --changes-from EARLIER --change-rate R
 * --out FILE}): what SUNAT would publish the day after, for the tests and benchmarks of a reload. Of the earlier
 * file's records, {@code round(R × records)} change, split among the kinds of {@link Kind} by its shares (largest
 * remainders, so the counts add up exactly), each record changing at most once, at positions drawn uniformly:
 * <ul>
 *   <li>{@code estado} 35 %: ACTIVO becomes BAJA DE OFICIO (45 %), SUSPENSION TEMPORAL (30 %), BAJA DEFINITIVA
 *   (20 %) or BAJA PROV. POR OFICI (5 %); any other estado becomes ACTIVO (75 %) or BAJA DEFINITIVA;</li>
 *   <li>{@code condición} 25 %: HABIDO becomes NO HABIDO (50 %), NO HALLADO (35 %) or NO HALLADO SE MUDO D;
 *   any other condición becomes HABIDO;</li>
 *   <li>{@code address} 15 %: the eleven fields from UBIGEO to KILÓMETRO are drawn anew (the same district half of
 *   the time), so that {@code direccion} differs;</li>
 *   <li>{@code name} 5 %: a company changes its legal form (S.R.L. to S.A.C.…) or its whole name, a person gains a
 *   given name or has the name rectified;</li>
 *   <li>{@code added} 15 %: a new RUC (valid check digit, 10… for 70 % of them, 20… for the others, absent from the
 *   earlier file), ACTIVO and HABIDO, written after the record drawn for it;</li>
 *   <li>{@code removed} 5 %: the record is left out.</li>
 * </ul>
 * The shares are this project's assumption of a typical day (estado and condición dominate SUNAT's daily changes,
 * names rarely change), not a measurement: SUNAT publishes no differences. A changed record differs in exactly the
 * spec field of its kind; its other fields, and every other line (the header included), keep their bytes, in their
 * order. Lines end as the earlier file's first line does (CRLF for SUNAT's); a line that does not parse as a padrón
 * line is copied as it is and never changed. The same earlier file, rate and seed give the same bytes.
 *
 * <p>Constant memory whatever the file's size: the earlier file (a zip or the bare text) is streamed twice, once to
 * count its records and mark the RUCs taken (one bit per possible 10… and 20… RUC, 25 MB), once to write the new
 * file; no line is held beyond the one being written.
 */
public final class NextDayPadron {

    /** A kind of change, and its share of a day's changes. */
    public enum Kind {
        ESTADO("estado", 0.35),
        CONDICION("condicion", 0.25),
        ADDRESS("address", 0.15),
        NAME("name", 0.05),
        ADDED("added", 0.15),
        REMOVED("removed", 0.05);

        private final String label;
        private final double share;

        Kind(String label, double share) {
            this.label = label;
            this.share = share;
        }

        public String label() {
            return label;
        }

        public double share() {
            return share;
        }
    }

    /** What one run wrote: the earlier file's records, the changes of each kind, and the new file's records. */
    public record Summary(long earlierRecords, Map<Kind, Long> changes, long records) {

        public Summary {
            changes = Collections.unmodifiableMap(new EnumMap<>(changes));
        }

        public long changesOf(Kind kind) {
            return changes.getOrDefault(kind, 0L);
        }

        public long total() {
            return changes.values().stream().mapToLong(Long::longValue).sum();
        }

        /** The records that changed in place: estado, condición, address and name. */
        public long changed() {
            return changesOf(Kind.ESTADO) + changesOf(Kind.CONDICION) + changesOf(Kind.ADDRESS) + changesOf(Kind.NAME);
        }

        /** One line: {@code padrón day 2: 2000000 records read from …, 20000 changes (1.00 %): estado 7000, …}. */
        public String describe(Path from, Path to) {
            StringBuilder kinds = new StringBuilder();
            for (Kind kind : Kind.values()) {
                kinds.append(kinds.isEmpty() ? "" : ", ").append(kind.label()).append(' ').append(changesOf(kind));
            }
            return String.format(Locale.ROOT, "padrón day 2: %d records read from %s, %d changes (%.2f %%): %s;"
                            + " %d records written to %s", earlierRecords, from, total(),
                    earlierRecords == 0 ? 0.0 : 100.0 * total() / earlierRecords, kinds, records, to);
        }
    }

    private static final String[] FROM_ACTIVO = {"BAJA DE OFICIO", "SUSPENSION TEMPORAL", "BAJA DEFINITIVA",
            "BAJA PROV. POR OFICI"};
    private static final double[] FROM_ACTIVO_SHARES = {0.45, 0.30, 0.20, 0.05};
    private static final String[] FROM_HABIDO = {"NO HABIDO", "NO HALLADO", "NO HALLADO SE MUDO D"};
    private static final double[] FROM_HABIDO_SHARES = {0.50, 0.35, 0.15};
    /** Padrón fields, 0-based: the name, estado, condición, then the address from UBIGEO on. */
    private static final int NAME = 1;
    private static final int ESTADO = 2;
    private static final int CONDICION = 3;
    private static final int UBIGEO = 4;
    private static final int BODIES = 100_000_000;
    private static final int MAX_TRIES = 50;

    private NextDayPadron() {
    }

    /**
     * Writes the day after {@code earlier} (zip or text, told by its first bytes as the ETL tells it) to {@code out}
     * (zipped when its name ends in .zip), with {@code round(rate × records)} changes.
     */
    public static Summary write(Path earlier, Path out, double rate, long seed) throws IOException {
        if (!(rate >= 0 && rate <= 1)) {
            throw new IllegalArgumentException("the change rate is a share from 0 to 1, not " + rate);
        }
        Scan scan = read(earlier, NextDayPadron::scan);
        Map<Kind, Long> counts = counts(Math.round(rate * scan.records), scan.records);
        long[] written = new long[1];
        PadronGenerator.writeFile(out, stream -> written[0] = read(earlier,
                in -> new Writer(scan, counts, new SplittableRandom(seed), stream).copy(in)));
        return new Summary(scan.records, counts, written[0]);
    }

    /** The changes of each kind: {@code total} split by the shares, largest remainders first. */
    static Map<Kind, Long> counts(long total, long records) {
        if (total > records) {
            throw new IllegalArgumentException(total + " changes in " + records + " records");
        }
        Map<Kind, Long> counts = new EnumMap<>(Kind.class);
        long given = 0;
        for (Kind kind : Kind.values()) {
            long n = (long) Math.floor(total * kind.share());
            counts.put(kind, n);
            given += n;
        }
        while (given < total) {
            Kind most = null;
            double largest = -1;
            for (Kind kind : Kind.values()) {
                double remainder = total * kind.share() - Math.floor(total * kind.share());
                if (remainder > largest && counts.get(kind) == (long) Math.floor(total * kind.share())) {
                    largest = remainder;
                    most = kind;
                }
            }
            counts.merge(Objects.requireNonNull(most), 1L, Long::sum);
            given++;
        }
        return counts;
    }

    @FunctionalInterface
    private interface LinesReader<T> {
        T read(InputStream in) throws IOException;
    }

    private static <T> T read(Path file, LinesReader<T> reader) throws IOException {
        try {
            return SourceFile.read(file.toString(), null, "generate-padron", ".txt", Long.MAX_VALUE,
                    reader::read, digest -> {
                    });
        } catch (IOException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException(e);
        }
    }

    /** The first pass: the records that may change, the RUCs taken, and how lines end. */
    private static final class Scan {
        long records;
        final BitSet persons = new BitSet(BODIES);
        final BitSet companies = new BitSet(BODIES);
        byte[] lineEnd;
    }

    private static Scan scan(InputStream in) throws IOException {
        Scan scan = new Scan();
        BufferedInputStream text = new BufferedInputStream(in, 1 << 16);
        scan.lineEnd = lineEnd(text);
        SourceLines lines = SourceLines.latin1(text);
        for (String line = lines.next(); line != null; line = lines.next()) {
            PadronRecord record = record(line);
            if (record != null) {
                scan.records++;
                String ruc = record.ruc().value();
                BitSet taken = taken(scan, ruc.substring(0, 2));
                if (taken != null) {
                    taken.set(Integer.parseInt(ruc, 2, 10, 10));
                }
            }
        }
        return scan;
    }

    private static BitSet taken(Scan scan, String prefix) {
        return switch (prefix) {
            case "10" -> scan.persons;
            case "20" -> scan.companies;
            default -> null;
        };
    }

    /** CRLF or LF, as the file's first line ends (CRLF when it has none). */
    private static byte[] lineEnd(BufferedInputStream text) throws IOException {
        text.mark(SourceLines.MAX_LINE_BYTES + 2);
        byte[] start = text.readNBytes(SourceLines.MAX_LINE_BYTES + 2);
        text.reset();
        for (int i = 0; i < start.length; i++) {
            if (start[i] == '\n') {
                return i > 0 && start[i - 1] == '\r' ? new byte[]{'\r', '\n'} : new byte[]{'\n'};
            }
        }
        return new byte[]{'\r', '\n'};
    }

    /** The line's record, or null for the header and for a line that is not a padrón line. */
    private static PadronRecord record(String line) {
        if (PadronLine.isHeader(line)) {
            return null;
        }
        try {
            return PadronLine.parse(line);
        } catch (MalformedPadronLineException e) {
            return null;
        }
    }

    /** The second pass: copies the earlier file, changing the records drawn. */
    private static final class Writer {
        private final Scan scan;
        private final Map<Kind, Long> left;
        private final SplittableRandom random;
        private final OutputStream out;
        private long recordsLeft;
        private long written;

        Writer(Scan scan, Map<Kind, Long> counts, SplittableRandom random, OutputStream out) {
            this.scan = scan;
            this.left = new EnumMap<>(counts);
            this.random = random;
            this.out = out;
            this.recordsLeft = scan.records;
        }

        long copy(InputStream in) throws IOException {
            SourceLines lines = SourceLines.latin1(in);
            for (String line = lines.next(); line != null; line = lines.next()) {
                PadronRecord record = record(line);
                if (record == null) {
                    emit(line, false);
                    continue;
                }
                Kind kind = draw();
                if (kind == null) {
                    emit(line, true);
                    continue;
                }
                switch (kind) {
                    case REMOVED -> {
                    }
                    case ADDED -> {
                        emit(line, true);
                        emit(newcomer(), true);
                    }
                    default -> emit(changed(line, record, kind), true);
                }
            }
            if (recordsLeft != 0 || left.values().stream().anyMatch(n -> n != 0)) {
                throw new IllegalStateException("the earlier file changed while it was read: " + recordsLeft
                        + " records fewer than counted");
            }
            return written;
        }

        private void emit(String line, boolean record) throws IOException {
            out.write(line.getBytes(StandardCharsets.ISO_8859_1));
            out.write(scan.lineEnd);
            if (record) {
                written++;
            }
        }

        /**
         * The kind of change of the next record, or null: with {@code n} records left and {@code k} changes of a
         * kind left, that kind's chance is {@code k/n}, which spends every count exactly by the last record.
         */
        private Kind draw() {
            long u = random.nextLong(recordsLeft);
            recordsLeft--;
            for (Kind kind : Kind.values()) {
                long n = left.get(kind);
                if (u < n) {
                    left.put(kind, n - 1);
                    return kind;
                }
                u -= n;
            }
            return null;
        }

        private String changed(String line, PadronRecord before, Kind kind) {
            // A line that parses has exactly 15 fields, each closed by '|': 16 parts, the last one empty.
            String[] fields = line.split("\\|", -1);
            for (int attempt = 0; attempt < MAX_TRIES; attempt++) {
                String[] next = fields.clone();
                switch (kind) {
                    case ESTADO -> next[ESTADO] = estado(before.estado());
                    case CONDICION -> next[CONDICION] = condicion(before.condicion());
                    case ADDRESS -> address(next, before);
                    case NAME -> next[NAME] = name(before);
                    default -> throw new IllegalArgumentException(kind.name());
                }
                String candidate = String.join("|", next);
                if (differs(before, PadronLine.parse(candidate), kind)) {
                    return candidate;
                }
            }
            throw new IllegalStateException("no " + kind.label() + " change found for " + before.ruc().value());
        }

        private String estado(String before) {
            if ("ACTIVO".equals(before)) {
                return weighted(FROM_ACTIVO, FROM_ACTIVO_SHARES);
            }
            return random.nextDouble() < 0.75 || "BAJA DEFINITIVA".equals(before) ? "ACTIVO" : "BAJA DEFINITIVA";
        }

        private String condicion(String before) {
            return "HABIDO".equals(before) ? weighted(FROM_HABIDO, FROM_HABIDO_SHARES) : "HABIDO";
        }

        /** A new address from UBIGEO to KILÓMETRO; half of the moves stay in the district. */
        private void address(String[] fields, PadronRecord before) {
            StringBuilder drawn = new StringBuilder(96);
            PadronGenerator.address(drawn, random);
            String[] parts = drawn.toString().split("\\|", -1);
            System.arraycopy(parts, 0, fields, UBIGEO, 11);
            if (before.ubigeo() != null && random.nextBoolean()) {
                fields[UBIGEO] = before.ubigeo();
            }
        }

        /** A company's legal form or whole name; a person's added given name or rectified name. */
        private String name(PadronRecord before) {
            String name = before.razonSocial();
            boolean person = before.ruc().value().startsWith("10");
            if (random.nextBoolean()) {
                return person ? PadronGenerator.personName(random) : PadronGenerator.companyName(random);
            }
            if (person) {
                return name + " " + PadronGenerator.pick(PadronGenerator.FIRST_NAMES, random);
            }
            String form = PadronGenerator.pick(PadronGenerator.LEGAL_FORMS, random);
            for (String old : PadronGenerator.LEGAL_FORMS) {
                if (name.endsWith(" " + old)) {
                    return name.substring(0, name.length() - old.length()) + form;
                }
            }
            return name + " " + form;
        }

        /** Whether the spec field of the kind differs, and no other. */
        private static boolean differs(PadronRecord before, PadronRecord after, Kind kind) {
            boolean name = !before.razonSocial().equals(after.razonSocial());
            boolean estado = !Objects.equals(before.estado(), after.estado());
            boolean condicion = !Objects.equals(before.condicion(), after.condicion());
            boolean address = !Objects.equals(Direccion.compose(before.address()), Direccion.compose(after.address()));
            boolean ubigeo = !Objects.equals(before.ubigeo(), after.ubigeo());
            return switch (kind) {
                case ESTADO -> estado && !name && !condicion && !address && !ubigeo;
                case CONDICION -> condicion && !name && !estado && !address && !ubigeo;
                case ADDRESS -> address && !name && !estado && !condicion;
                case NAME -> name && !estado && !condicion && !address && !ubigeo;
                default -> false;
            };
        }

        /** A new RUC's line: a person (10…) with no address, as the padrón lists most, or a company (20…). */
        private String newcomer() {
            boolean person = random.nextDouble() < 0.70;
            String prefix = person ? "10" : "20";
            BitSet taken = person ? scan.persons : scan.companies;
            int body = freeBody(taken);
            taken.set(body);
            String ruc = Ruc.completing(prefix + String.format(Locale.ROOT, "%08d", body)).value();
            StringBuilder line = new StringBuilder(160).append(ruc).append('|')
                    .append(person ? PadronGenerator.personName(random) : PadronGenerator.companyName(random))
                    .append("|ACTIVO|HABIDO|");
            if (person) {
                line.append("-|-|-|-|-|-|-|-|-|-|-|");
            } else {
                PadronGenerator.address(line, random);
            }
            return line.toString();
        }

        private int freeBody(BitSet taken) {
            for (int attempt = 0; attempt < MAX_TRIES; attempt++) {
                int body = random.nextInt(BODIES);
                if (!taken.get(body)) {
                    return body;
                }
            }
            // A nearly full prefix: the first free body from a random place on, wrapping around.
            int from = random.nextInt(BODIES);
            int body = taken.nextClearBit(from);
            if (body >= BODIES) {
                body = taken.nextClearBit(0);
            }
            if (body >= BODIES) {
                throw new IllegalStateException("every RUC of the prefix is taken");
            }
            return body;
        }

        private String weighted(String[] values, double[] shares) {
            double p = random.nextDouble();
            for (int i = 0; i < values.length - 1; i++) {
                p -= shares[i];
                if (p < 0) {
                    return values[i];
                }
            }
            return values[values.length - 1];
        }
    }
}
