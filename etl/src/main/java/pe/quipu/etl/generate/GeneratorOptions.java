package pe.quipu.etl.generate;

import java.nio.file.Path;

/**
 * The command line of the data generators ({@code ./quipu generate-padron}, {@code ./quipu generate-sunat-lists}):
 * {@code --rows N --out PATH [--seed S]}, the seed 42 by default.
 */
public record GeneratorOptions(long rows, Path out, long seed) {

    /** The options in {@code args}; prints {@code usage} and exits 2 when {@code --rows} or {@code --out} is missing. */
    public static GeneratorOptions parse(String[] args, String usage) {
        long rows = -1;
        Path out = null;
        long seed = 42;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--rows" -> rows = Long.parseLong(args[i + 1]);
                case "--out" -> out = Path.of(args[i + 1]);
                case "--seed" -> seed = Long.parseLong(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (rows < 0 || out == null) {
            System.err.println(usage);
            System.exit(2);
        }
        return new GeneratorOptions(rows, out, seed);
    }
}
