package pe.quipu.etl;

import io.dropwizard.configuration.ConfigurationException;
import pe.quipu.core.io.FileTrees;
import pe.quipu.etl.generate.NextDayPadron;
import pe.quipu.etl.generate.PadronGenerator;
import pe.quipu.etl.generate.SunatListsGenerator;
import pe.quipu.etl.sunat.SunatFile;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code EtlTraining --work-dir DIR config.yml}: the training run of the ETL's ahead-of-time cache ({@code ./quipu}
 * runs it once per build with {@code -XX:AOTCacheOutput}, docs/aot-cache.md). It runs the real jobs, each as
 * {@code ./quipu etl} would, on an embedded PostgreSQL of its own in {@code DIR} (a folder that does not exist yet,
 * deleted at the end): a generated padrón into the empty registry, its next day (publication by difference), that
 * day again (unchanged), SUNAT's four lists and premises, and INEI's districts. The configured database is never
 * touched, and nothing reaches beyond the machine (no job that downloads runs). Any job that does not succeed fails
 * the training (exit 1), so that no cache is kept from a run that did not go the way a real one goes.
 */
public final class EtlTraining {

    /** Records of the padrón: its load takes a few seconds, long enough for the JIT's profiles of the parser. */
    static final long ROWS = 50_000;
    private static final long SEED = 42;
    /** Dropwizard's default prefix for configuration values given as system properties, which the ETL reads too. */
    private static final String OVERRIDE_PREFIX = "dw.";

    private EtlTraining() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 3 || !args[0].equals("--work-dir")) {
            System.err.println("usage: EtlTraining --work-dir DIR config.yml   (DIR must not exist yet)");
            System.exit(QuipuEtl.USAGE);
        }
        int code = train(Path.of(args[1]), Path.of(args[2]), System.out, System.err);
        System.exit(code);
    }

    /**
     * Runs the jobs against a database of its own in {@code workDirectory} (created here, deleted at the end) and
     * returns 0, or the first failing job's exit code.
     */
    static int train(Path workDirectory, Path config, PrintStream out, PrintStream err) throws Exception {
        Path work = Files.createDirectory(workDirectory).toAbsolutePath();
        Map<String, String> overrides = Map.of(
                "environment", "development",
                "database.url", "",
                "database.embeddedDataDirectory", work.resolve("postgres").toString(),
                "database.embeddedPort", "0",
                "database.embeddedServerSettings", "");
        overrides.forEach((name, value) -> System.setProperty(OVERRIDE_PREFIX + name, value));
        try {
            isolated(config, work);
            Path day1 = work.resolve("day1.zip");
            Path day2 = work.resolve("day2.zip");
            PadronGenerator.write(day1, ROWS, SEED);
            NextDayPadron.write(day1, day2, 0.01, SEED + 1);
            Map<SunatFile, Path> lists = SunatListsGenerator.write(work.resolve("sunat"), ROWS, SEED);
            List<List<String>> jobs = new ArrayList<>();
            jobs.add(List.of("padron", "--file", day1.toString()));
            jobs.add(List.of("padron", "--file", day2.toString()));
            jobs.add(List.of("padron", "--file", day2.toString()));
            lists.forEach((file, path) -> jobs.add(List.of(file.jobName(), "--file", path.toString())));
            jobs.add(List.of("ubigeo"));
            for (List<String> job : jobs) {
                List<String> args = new ArrayList<>(job);
                args.add(config.toString());
                int code = new QuipuEtl(Clock.systemUTC(), out, err).run(args.toArray(String[]::new));
                if (code != QuipuEtl.SUCCEEDED) {
                    err.println("quipu-etl training: " + String.join(" ", job) + " exited " + code);
                    return code;
                }
            }
            return QuipuEtl.SUCCEEDED;
        } finally {
            overrides.keySet().forEach(name -> System.clearProperty(OVERRIDE_PREFIX + name));
            FileTrees.delete(work);
        }
    }

    /**
     * Refuses to go on unless the configuration, as the jobs will read it, names the embedded server in the work
     * folder: training against the configured database would load generated records into it.
     */
    private static void isolated(Path config, Path work) throws IOException, ConfigurationException {
        EtlConfiguration configuration = EtlConfiguration.read(config);
        if (configuration.database().external()
                || !configuration.database().embeddedDataDirectory().toAbsolutePath().startsWith(work)) {
            throw new IllegalStateException("quipu-etl training: the configuration could not be isolated (a database"
                    + " of its own in " + work + "); nothing was run");
        }
    }
}
