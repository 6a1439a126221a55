package pe.quipu.etl;

import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import pe.quipu.etl.run.ProgressReporter;

import java.nio.file.Path;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * {@code <job> [--option value]… config.yml}, checked against the job's options before anything runs. The command
 * line is parsed by picocli, one subcommand per {@link EtlJob} with the options it declares: an unknown or repeated
 * option, a missing value or config file is a one-line usage error, and {@code --help} describes the job. Every job
 * also takes {@code --progress auto|line|bar|none}, which says how the run shows its progress and is none of the job's
 * parameters.
 *
 * @param options  the job's options, without the leading dashes
 * @param progress {@code --progress} ({@code auto} when not given)
 */
public record EtlCommand(EtlJob job, Map<String, String> options, Path config, ProgressReporter.Mode progress) {

    /** The option every job takes besides its own. */
    private static final String PROGRESS = "--progress";

    public static EtlCommand parse(String[] args) {
        return parse(args, Clock.systemUTC());
    }

    /** @param clock tells today's date, for options that default to or must not pass it */
    public static EtlCommand parse(String[] args, Clock clock) {
        if (args.length == 0) {
            throw new UsageException("expected <job> [options] config.yml");
        }
        ParseResult parsed;
        try {
            parsed = commandLine().parseArgs(args);
        } catch (ParameterException e) {
            throw new UsageException(message(e, args));
        }
        ParseResult run = parsed.subcommand();
        if (run == null) {
            throw new UsageException("expected <job> [options] config.yml");
        }
        EtlJob job = EtlJob.named(run.commandSpec().name()).orElseThrow();
        Map<String, String> options = new LinkedHashMap<>();
        ProgressReporter.Mode progress = ProgressReporter.Mode.AUTO;
        for (OptionSpec option : run.matchedOptions()) {
            if (option.longestName().equals(PROGRESS)) {
                try {
                    progress = ProgressReporter.Mode.of(option.getValue());
                } catch (IllegalArgumentException e) {
                    throw new UsageException(e.getMessage());
                }
            } else if (!option.usageHelp()) {
                options.put(option.longestName().substring(2), option.getValue());
            }
        }
        job.validate(options, clock);
        return new EtlCommand(job, options, Path.of((String) run.matchedPositional(0).getValue()), progress);
    }

    /**
     * The usage text {@code --help} (or {@code -h}) asks for: the job's, when it names one; empty when the command
     * line asks for none (it is then parsed by {@link #parse}).
     */
    public static Optional<String> help(String[] args) {
        ParseResult parsed;
        try {
            parsed = commandLine().parseArgs(args);
        } catch (ParameterException e) {
            return Optional.empty();
        }
        ParseResult job = parsed.subcommand();
        if (job != null && job.isUsageHelpRequested()) {
            return Optional.of(job.commandSpec().commandLine().getUsageMessage(CommandLine.Help.Ansi.OFF));
        }
        return parsed.isUsageHelpRequested() ? Optional.of("") : Optional.empty();
    }

    /** The whole command line: one subcommand a job, each with its options and the configuration file. */
    static CommandLine commandLine() {
        CommandSpec etl = CommandSpec.create().name("./quipu etl");
        etl.addOption(help());
        for (EtlJob job : EtlJob.values()) {
            CommandSpec spec = CommandSpec.create().name(job.jobName());
            spec.usageMessage().description(job.description());
            spec.addOption(help());
            for (String option : job.options()) {
                Described described = Described.of(option);
                spec.addOption(OptionSpec.builder("--" + option).paramLabel(described.label()).type(String.class)
                        .description(described.description()).build());
            }
            spec.addOption(OptionSpec.builder(PROGRESS).paramLabel("auto|line|bar|none").type(String.class)
                    .description("how the run shows its progress on standard error: auto (the default) redraws one"
                            + " line on a terminal and logs a line every etl.progressEvery (10 s) elsewhere; line"
                            + " logs, bar redraws, none shows nothing").build());
            spec.addPositional(PositionalParamSpec.builder().paramLabel("config.yml").type(String.class)
                    .arity("1").required(true).index("0")
                    .description("Quipu's configuration (the API's config.yml)").build());
            etl.addSubcommand(job.jobName(), spec);
        }
        return new CommandLine(etl);
    }

    private static OptionSpec help() {
        return OptionSpec.builder("-h", "--help").usageHelp(true).description("this help, then exit").build();
    }

    /** picocli's message, naming the job, on one line. */
    private static String message(ParameterException e, String[] args) {
        String message = e.getMessage().replace(System.lineSeparator(), " ").strip();
        Optional<EtlJob> named = EtlJob.named(args[0]);
        if (e instanceof CommandLine.UnmatchedArgumentException unmatched) {
            if (named.isEmpty() && !args[0].startsWith("-")) {
                return "unknown job '" + args[0] + "'; jobs: " + String.join(", ", EtlJob.names());
            }
            for (String arg : unmatched.getUnmatched()) {
                if (arg.startsWith("-") && named.isPresent()) {
                    EtlJob job = named.get();
                    return job.jobName() + " takes " + (job.options().isEmpty() ? "" : "--"
                            + String.join(", --", job.options()) + ", ") + PROGRESS + "; not " + arg;
                }
            }
        }
        return named.map(job -> job.jobName() + ": " + message).orElse(message);
    }

    /** How an option shows in the help. */
    private record Described(String label, String description) {
        static Described of(String option) {
            return switch (option) {
                case "file" -> new Described("PATH", "the file, already downloaded (.zip or as published)");
                case "url" -> new Described("URL", "where to download it from (https://, or http:// where allowed)");
                case "fuente" -> new Described("bcrp|sbs|sunat|all", "which source's rates (default: all)");
                case "from" -> new Described("YYYY-MM-DD", "the first date (default: the 10th day back from --to)");
                case "to" -> new Described("YYYY-MM-DD", "the last date (default: today in Lima)");
                default -> new Described("VALUE", option);
            };
        }
    }

    /** A command line Quipu cannot run: exit code 2, with the usage. */
    public static final class UsageException extends RuntimeException {
        public UsageException(String message) {
            super(message);
        }
    }
}
