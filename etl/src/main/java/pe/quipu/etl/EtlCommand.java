package pe.quipu.etl;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * {@code <job> [--option value]… config.yml}, checked against the job's options before anything runs.
 *
 * @param options option names without the leading dashes
 */
public record EtlCommand(EtlJob job, Map<String, String> options, Path config) {

    public static EtlCommand parse(String[] args) {
        return parse(args, java.time.Clock.systemUTC());
    }

    /** @param clock tells today's date, for options that default to or must not pass it */
    public static EtlCommand parse(String[] args, java.time.Clock clock) {
        if (args.length < 2) {
            throw new UsageException("expected <job> [options] config.yml");
        }
        EtlJob job = EtlJob.named(args[0]).orElseThrow(() -> new UsageException("unknown job '" + args[0]
                + "'; jobs: " + String.join(", ", EtlJob.names())));
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 1; i < args.length - 1; i++) {
            String arg = args[i];
            if (!arg.startsWith("--") || i + 1 >= args.length - 1) {
                throw new UsageException("expected --option value before the config file, got '" + arg + "'");
            }
            String name = arg.substring(2);
            if (!job.options().contains(name)) {
                throw new UsageException(job.jobName() + " takes " + describe(job.options()) + "; not --" + name);
            }
            if (options.put(name, args[++i]) != null) {
                throw new UsageException("--" + name + " given twice");
            }
        }
        job.validate(options, clock);
        return new EtlCommand(job, options, Path.of(args[args.length - 1]));
    }

    private static String describe(Set<String> options) {
        return options.isEmpty() ? "no options" : "--" + String.join(", --", options);
    }

    /** A command line Quipu cannot run: exit code 2, with the usage. */
    public static final class UsageException extends RuntimeException {
        public UsageException(String message) {
            super(message);
        }
    }
}
