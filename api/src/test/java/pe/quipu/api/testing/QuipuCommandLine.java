package pe.quipu.api.testing;

import io.dropwizard.configuration.YamlConfigurationFactory;
import io.dropwizard.core.cli.Cli;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.util.JarLocation;
import pe.quipu.api.QuipuApplication;
import pe.quipu.api.QuipuConfiguration;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * Runs an operator command as {@code java -jar quipu-api.jar <command> … config.yml} does, in this JVM, on the
 * database of a running Quipu: the command attaches to the embedded server the application runs on, and must not
 * stop it.
 */
public final class QuipuCommandLine {

    /** What a command printed, and what it failed with. */
    public record Result(String stdout, String stderr, Optional<Throwable> error) {
    }

    private QuipuCommandLine() {
    }

    /** Runs {@code args} (the command and its options; config.yml is added) with {@code quipu}'s clock. */
    public static Result run(QuipuExtension quipu, String... args) {
        return run(quipu, Map.of(), args);
    }

    /** {@link #run(QuipuExtension, String...)} with more configuration values ({@code dw.}-style names). */
    public static Result run(QuipuExtension quipu, Map<String, String> settings, String... args) {
        // config.yml with the test database on top, as system properties under a prefix of this run's own (the
        // running instances read theirs under their own prefixes).
        String prefix = "quipu-cli-" + UUID.randomUUID() + ".";
        Map<String, String> overrides = new java.util.HashMap<>(Map.of(
                "database.url", "",
                "database.embeddedDataDirectory", quipu.database.dataDirectory().toString(),
                "logging.level", "WARN"));
        overrides.putAll(settings);
        QuipuApplication application = new QuipuApplication(quipu.clock);
        Bootstrap<QuipuConfiguration> bootstrap = new Bootstrap<>(application);
        application.initialize(bootstrap);
        bootstrap.setConfigurationFactoryFactory((klass, validator, mapper, defaultPrefix) ->
                new YamlConfigurationFactory<>(klass, validator, mapper, prefix));
        String[] full = new String[args.length + 1];
        System.arraycopy(args, 0, full, 0, args.length);
        full[args.length] = Path.of("..", "config.yml").toString();

        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream originalOut = System.out;
        PrintStream originalErr = System.err;
        Optional<Throwable> error;
        overrides.forEach((key, value) -> System.setProperty(prefix + key, value));
        try (PrintStream capturedOut = new PrintStream(out, true, StandardCharsets.UTF_8);
             PrintStream capturedErr = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            System.setOut(capturedOut);
            System.setErr(capturedErr);
            error = new Cli(new JarLocation(QuipuApplication.class), bootstrap, capturedOut, capturedErr).run(full);
        } finally {
            System.setOut(originalOut);
            System.setErr(originalErr);
            overrides.keySet().forEach(key -> System.clearProperty(prefix + key));
        }
        return new Result(out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8), error);
    }
}
