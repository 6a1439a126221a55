package pe.quipu.etl.generate;

import java.nio.file.Path;

/**
 * The command line of the data generators ({@code ./quipu generate-padron}, {@code ./quipu generate-sunat-lists}):
 * {@code --rows N --out PATH [--seed S]}, the seed 42 by default. The padrón generator also takes
 * {@code --changes-from EARLIER --change-rate R} in place of {@code --rows}: the next day's file of an earlier one
 * ({@link NextDayPadron}).
 *
 * @param rows        the rows to write; -1 with {@code changesFrom}
 * @param changesFrom the earlier padrón, or null
 * @param changeRate  with {@code changesFrom}, the share of its records that change (0 to 1); else 0
 */
public record GeneratorOptions(long rows, Path out, long seed, Path changesFrom, double changeRate) {

    /** The options in {@code args}; prints {@code usage} and exits 2 when {@code --rows} or {@code --out} is missing. */
    public static GeneratorOptions parse(String[] args, String usage) {
        return parse(args, usage, false);
    }

    /**
     * The options in {@code args}, {@code --changes-from} and {@code --change-rate} among them when
     * {@code changesAllowed}; prints {@code usage} and exits 2 when they are incomplete or contradictory.
     */
    static GeneratorOptions parse(String[] args, String usage, boolean changesAllowed) {
        long rows = -1;
        Path out = null;
        long seed = 42;
        Path changesFrom = null;
        double changeRate = Double.NaN;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--rows" -> rows = Long.parseLong(args[i + 1]);
                case "--out" -> out = Path.of(args[i + 1]);
                case "--seed" -> seed = Long.parseLong(args[i + 1]);
                case "--changes-from" -> changesFrom = changesAllowed ? Path.of(args[i + 1]) : unknown(args[i]);
                case "--change-rate" -> changeRate = changesAllowed ? Double.parseDouble(args[i + 1]) : unknown(args[i]);
                default -> unknown(args[i]);
            }
        }
        boolean fromRows = rows >= 0 && changesFrom == null && Double.isNaN(changeRate);
        boolean fromEarlier = rows < 0 && changesFrom != null && changeRate >= 0 && changeRate <= 1;
        if (out == null || !(fromRows || fromEarlier)) {
            System.err.println(usage);
            if (changesFrom != null || !Double.isNaN(changeRate)) {
                System.err.println("--changes-from and --change-rate (0 to 1, e.g. 0.01) go together, without --rows");
            }
            System.exit(2);
        }
        return new GeneratorOptions(rows, out, seed, changesFrom, fromEarlier ? changeRate : 0);
    }

    private static <T> T unknown(String option) {
        throw new IllegalArgumentException("unknown option " + option);
    }
}
