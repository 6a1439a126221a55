package pe.quipu.etl.generate;

import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;

import java.io.PrintStream;
import java.nio.file.Path;

/**
 * The command line of the data generators ({@code ./quipu generate-padron}, {@code ./quipu generate-sunat-lists}):
 * {@code --rows N --out PATH [--seed S]}, the seed 42 by default. The padrón generator also takes
 * {@code --changes-from EARLIER --change-rate R} in place of {@code --rows}: the next day's file of an earlier one
 * ({@link NextDayPadron}). Parsed by picocli: a value of the wrong type, an unknown option or a missing one is a
 * one-line usage error (exit 2), and {@code --help} prints the usage (exit 0).
 *
 * @param rows        the rows to write; -1 with {@code changesFrom}
 * @param changesFrom the earlier padrón, or null
 * @param changeRate  with {@code changesFrom}, the share of its records that change (0 to 1); else 0
 */
public record GeneratorOptions(long rows, Path out, long seed, Path changesFrom, double changeRate) {

    /** What the command line asked for instead of options: its usage, or a usage error (the message). */
    static final class Refused extends RuntimeException {
        private final boolean help;

        Refused(String message, boolean help) {
            super(message);
            this.help = help;
        }

        /** Whether it asked for the usage ({@code --help}), which is no error. */
        boolean help() {
            return help;
        }
    }

    /** The options in {@code args}; prints {@code usage} and exits (0 for --help, 2 for an error) otherwise. */
    public static GeneratorOptions parse(String[] args, String usage) {
        return parse(args, usage, false);
    }

    static GeneratorOptions parse(String[] args, String usage, boolean changesAllowed) {
        try {
            return read(args, changesAllowed);
        } catch (Refused refused) {
            PrintStream stream = refused.help() ? System.out : System.err;
            if (!refused.help()) {
                stream.println(refused.getMessage());
            }
            stream.println(usage);
            System.exit(refused.help() ? 0 : 2);
            throw refused;
        }
    }

    /**
     * The options in {@code args}, {@code --changes-from} and {@code --change-rate} among them when
     * {@code changesAllowed}; throws {@link Refused} when they are incomplete, contradictory, of the wrong type, or
     * {@code --help} was given.
     */
    static GeneratorOptions read(String[] args, boolean changesAllowed) {
        CommandSpec spec = CommandSpec.create();
        spec.addOption(OptionSpec.builder("-h", "--help").usageHelp(true).build());
        spec.addOption(OptionSpec.builder("--rows").type(long.class).paramLabel("N").build());
        spec.addOption(OptionSpec.builder("--out").type(Path.class).paramLabel("PATH").build());
        spec.addOption(OptionSpec.builder("--seed").type(long.class).paramLabel("S").defaultValue("42").build());
        if (changesAllowed) {
            spec.addOption(OptionSpec.builder("--changes-from").type(Path.class).paramLabel("EARLIER").build());
            spec.addOption(OptionSpec.builder("--change-rate").type(double.class).paramLabel("R").build());
        }
        ParseResult parsed;
        try {
            parsed = new CommandLine(spec).parseArgs(args);
        } catch (ParameterException e) {
            throw new Refused(e.getMessage().replace(System.lineSeparator(), " ").strip(), false);
        }
        if (parsed.isUsageHelpRequested()) {
            throw new Refused("", true);
        }
        long rows = parsed.matchedOptionValue("--rows", -1L);
        Path out = parsed.matchedOptionValue("--out", null);
        long seed = parsed.matchedOptionValue("--seed", 42L);
        Path changesFrom = changesAllowed ? parsed.matchedOptionValue("--changes-from", null) : null;
        double changeRate = changesAllowed ? parsed.matchedOptionValue("--change-rate", Double.NaN) : Double.NaN;
        if (out == null) {
            throw new Refused("--out is missing", false);
        }
        if (changesFrom != null || !Double.isNaN(changeRate)) {
            if (rows >= 0 || changesFrom == null || !(changeRate >= 0 && changeRate <= 1)) {
                throw new Refused("--changes-from and --change-rate (0 to 1, e.g. 0.01) go together, without --rows",
                        false);
            }
            return new GeneratorOptions(-1, out, seed, changesFrom, changeRate);
        }
        if (rows < 0) {
            throw new Refused("--rows is missing or negative", false);
        }
        return new GeneratorOptions(rows, out, seed, null, 0);
    }
}
