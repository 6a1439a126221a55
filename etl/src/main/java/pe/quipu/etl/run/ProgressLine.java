package pe.quipu.etl.run;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;

/**
 * The words of a progress line, from what a phase has done so far ({@link Snapshot}): the rules of what it shows and
 * when, in one place and free of any clock or output.
 *
 * <pre>
 * padron: stage 412.0 MB of 1.4 GB (29 %), 2,310,000 lines, 12 rejected, 231,000 lines/s, 41.2 MB/s, elapsed 0:10, ETA 0:34
 * padron: compare 2,000,000 records, elapsed 0:04
 * padron: stage done in 41.2 s, 480.3 MB, 2,000,000 lines, 0 rejected, 48,544 lines/s, 11.7 MB/s
 * </pre>
 *
 * <ul>
 *   <li>Sizes in decimal units (kB, MB, GB: 10^3, 10^6, 10^9 bytes), one decimal; counts grouped by thousands.</li>
 *   <li>The share read is floored, so 100 % means all of it.</li>
 *   <li>Rates (lines/s, MB/s) are the phase's mean so far, shown once it has run a second (before that they are
 *   noise).</li>
 *   <li>ETA: the bytes left at the phase's mean rate, rounded up to the second; only while the phase runs, with a
 *   known total, something read, and a rate shown. A phase without a byte measure has no ETA.</li>
 *   <li>Elapsed time and ETA as m:ss (h:mm:ss from an hour on); a finished phase's time as seconds with a decimal
 *   under a minute ({@code done in 3.8 s}), else as m:ss.</li>
 * </ul>
 */
public final class ProgressLine {

    /** An unmeasured quantity. */
    public static final long NONE = -1;

    private static final long NANOS_PER_SECOND = 1_000_000_000L;
    private static final int BAR_WIDTH = 20;
    /** The rank of the part a terminal's line drops first. */
    private static final int LAST_RANK = 6;

    private ProgressLine() {
    }

    /**
     * What one phase of a run has done so far; {@link #NONE} for what it does not measure.
     *
     * @param ordinal      the phase's place in the run (1 for the first begun): tells one phase from the next, even
     *                     of the same kind
     * @param elapsedNanos time since the phase began
     * @param bytes        bytes read (or downloaded)
     * @param totalBytes   the file's size, when known
     * @param lines        data lines read
     * @param rejected     of those, lines rejected
     * @param items        a count of something else (records compared, requests made)
     * @param itemsTotal   how many of those there are in all, when known
     * @param itemsNoun    what the items are ({@code records}, {@code requests to bcrp})
     */
    public record Snapshot(String job, Progress.Phase phase, int ordinal, long elapsedNanos, long bytes,
                           long totalBytes, long lines, long rejected, long items, long itemsTotal, String itemsNoun) {
    }

    /** The line of a phase under way. */
    public static String running(Snapshot s) {
        return render(head(s, null), parts(s, true, true), Integer.MAX_VALUE);
    }

    /**
     * The line of a phase under way, at most {@code width} characters, for a terminal's status line: with a bar when
     * the total is known, and, where it does not fit, without its least useful parts in turn (MB/s, the elapsed time,
     * lines/s, the bar, the lines), then cut.
     */
    public static String terminal(Snapshot s, int width) {
        List<Part> parts = parts(s, true, true);
        if (s.bytes() >= 0 && s.totalBytes() > 0) {
            parts.addFirst(new Part(bar(s.bytes(), s.totalBytes()), 3, Kind.BAR));
        }
        return render(head(s, null), parts, width);
    }

    /** The last line of a phase: {@code done in}, or {@code stopped after} when its step did not complete. */
    public static String ended(Snapshot s, boolean done) {
        String head = head(s, (done ? "done in " : "stopped after ") + took(s.elapsedNanos()));
        // After the time, every part follows a comma.
        List<Part> parts = parts(s, !done, false).stream().map(p -> new Part(p.text(), p.rank(), Kind.OTHER))
                .toList();
        return render(head, parts, Integer.MAX_VALUE);
    }

    /** The seconds left at the phase's mean rate so far, when the rules above give an ETA. */
    public static OptionalLong etaSeconds(Snapshot s) {
        if (s.bytes() <= 0 || s.totalBytes() <= 0 || s.elapsedNanos() < NANOS_PER_SECOND) {
            return OptionalLong.empty();
        }
        long left = Math.max(0, s.totalBytes() - s.bytes());
        // nanoseconds left = left bytes at bytes/elapsed; rounded up to the second.
        double nanos = (double) left * s.elapsedNanos() / s.bytes();
        return OptionalLong.of((long) Math.ceil(nanos / NANOS_PER_SECOND));
    }

    /** A size in decimal units: {@code 512 B}, {@code 12.3 kB}, {@code 412.0 MB}, {@code 1.4 GB}. */
    public static String size(long bytes) {
        if (bytes < 1000) {
            return bytes + " B";
        }
        String[] units = {"kB", "MB", "GB", "TB"};
        double value = bytes / 1000.0;
        int unit = 0;
        // 999.96 MB would print as 1000.0 MB: such a size is shown in the next unit.
        while (value >= 999.95 && unit < units.length - 1) {
            value /= 1000;
            unit++;
        }
        return String.format(Locale.ROOT, "%.1f %s", value, units[unit]);
    }

    /** m:ss, or h:mm:ss from an hour on. */
    public static String clock(long seconds) {
        long h = seconds / 3600;
        long m = seconds % 3600 / 60;
        long s = seconds % 60;
        return h > 0 ? String.format(Locale.ROOT, "%d:%02d:%02d", h, m, s)
                : String.format(Locale.ROOT, "%d:%02d", m, s);
    }

    /** A finished phase's time: {@code 3.8 s} under a minute, else m:ss. */
    static String took(long nanos) {
        if (nanos < 60 * NANOS_PER_SECOND) {
            return String.format(Locale.ROOT, "%.1f s", nanos / (double) NANOS_PER_SECOND);
        }
        return clock(nanos / NANOS_PER_SECOND);
    }

    private static String count(long n) {
        return String.format(Locale.US, "%,d", n);
    }

    private static String head(Snapshot s, String ending) {
        return s.job() + ": " + s.phase().label() + (ending == null ? "" : " " + ending);
    }

    /** What a part of the line is: the bar and the first measure follow the phase's name after a space. */
    private enum Kind { BAR, MEASURE, OTHER }

    /**
     * A piece of the line. {@code rank}: where a line must be shortened, parts go from the highest rank ({@link
     * #LAST_RANK}: MB/s) down to 2 (the lines); those of rank 1 (the share and size, a count, the ETA) stay.
     */
    private record Part(String text, int rank, Kind kind) {
    }

    /**
     * @param ofTotal whether a size shows the share of the total it is (not once the phase is done: it is the total)
     * @param running whether the phase goes on: the elapsed time and the ETA
     */
    private static List<Part> parts(Snapshot s, boolean ofTotal, boolean running) {
        List<Part> parts = new ArrayList<>();
        boolean rates = s.elapsedNanos() >= NANOS_PER_SECOND;
        double seconds = s.elapsedNanos() / (double) NANOS_PER_SECOND;
        if (s.bytes() >= 0) {
            String read = size(s.bytes());
            if (ofTotal && s.totalBytes() > 0) {
                long percent = Math.min(100, Math.max(0, s.bytes() * 100 / s.totalBytes()));
                read += " of " + size(s.totalBytes()) + " (" + percent + " %)";
            }
            parts.add(new Part(read, 1, Kind.MEASURE));
        }
        if (s.items() >= 0) {
            parts.add(new Part(count(s.items()) + (s.itemsTotal() >= 0 ? " of " + count(s.itemsTotal()) : "")
                    + " " + s.itemsNoun(), 1, Kind.MEASURE));
        }
        if (s.lines() >= 0) {
            parts.add(new Part(count(s.lines()) + " lines", 2, Kind.MEASURE));
            parts.add(new Part(count(Math.max(0, s.rejected())) + " rejected", 2, Kind.MEASURE));
            if (rates) {
                parts.add(new Part(count(Math.round(s.lines() / seconds)) + " lines/s", 4, Kind.OTHER));
            }
        }
        if (s.bytes() >= 0 && rates) {
            parts.add(new Part(String.format(Locale.ROOT, "%.1f MB/s", s.bytes() / 1e6 / seconds), LAST_RANK,
                    Kind.OTHER));
        }
        if (running) {
            // Without a measure of its own, the time is all a phase shows.
            boolean alone = parts.isEmpty();
            parts.add(new Part("elapsed " + clock(s.elapsedNanos() / NANOS_PER_SECOND), alone ? 1 : 5, Kind.OTHER));
            OptionalLong eta = etaSeconds(s);
            if (eta.isPresent()) {
                parts.add(new Part("ETA " + clock(eta.getAsLong()), 1, Kind.OTHER));
            }
        }
        return parts;
    }

    /**
     * The head, then the measures after a space and the rest after commas; parts of the highest rank left out, in
     * turn, until the line fits {@code width}, and then cut.
     */
    private static String render(String head, List<Part> parts, int width) {
        List<Part> kept = new ArrayList<>(parts);
        String line = join(head, kept);
        for (int rank = LAST_RANK; rank > 1 && line.length() > width; rank--) {
            int dropped = rank;
            kept.removeIf(p -> p.rank() == dropped);
            line = join(head, kept);
        }
        return line.length() > width ? line.substring(0, Math.max(0, width)) : line;
    }

    private static String join(String head, List<Part> parts) {
        StringBuilder line = new StringBuilder(head);
        Kind before = null;
        for (Part part : parts) {
            boolean spaced = part.kind() == Kind.BAR
                    || part.kind() == Kind.MEASURE && (before == null || before == Kind.BAR);
            line.append(spaced ? " " : ", ").append(part.text());
            before = part.kind();
        }
        return line.toString();
    }

    private static String bar(long bytes, long total) {
        int filled = (int) Math.min(BAR_WIDTH, Math.max(0, bytes * BAR_WIDTH / total));
        return "[" + "#".repeat(filled) + " ".repeat(BAR_WIDTH - filled) + "]";
    }
}
