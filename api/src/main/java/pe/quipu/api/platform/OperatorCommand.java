package pe.quipu.api.platform;

import io.dropwizard.core.Configuration;
import io.dropwizard.core.cli.Cli;
import io.dropwizard.core.cli.ConfiguredCommand;
import io.dropwizard.core.setup.Bootstrap;
import net.sourceforge.argparse4j.inf.Namespace;
import org.jdbi.v3.core.Handle;
import pe.quipu.core.db.DatabaseSettings;

import java.time.Clock;

/**
 * An operator command that works on the configured database, whether or not the API is running against the same
 * embedded data directory: it attaches to the running server, or starts it and stops it again. Its work runs in one
 * transaction; a refusal or failure rolls it back.
 *
 * @param <C> the application's configuration, which says where the database is
 */
public abstract class OperatorCommand<C extends Configuration & OperatorCommand.DatabaseConfigured>
        extends ConfiguredCommand<C> {

    /** A configuration that says where the database is. */
    public interface DatabaseConfigured {
        DatabaseSettings getDatabase();
    }

    protected final Clock clock;
    private final Class<C> configurationClass;

    protected OperatorCommand(String name, String description, Class<C> configurationClass, Clock clock) {
        super(name, description);
        this.configurationClass = configurationClass;
        this.clock = clock;
    }

    /** Dropwizard would read the class from a type argument; here it is a type variable, so it is given. */
    @Override
    protected Class<C> getConfigurationClass() {
        return configurationClass;
    }

    @Override
    protected final void run(Bootstrap<C> bootstrap, Namespace namespace, C configuration) {
        try (Platform platform = Platform.forOperator(getName(), configuration.getDatabase(), clock,
                bootstrap.getObjectMapper())) {
            platform.jdbi().useTransaction(h -> run(namespace, platform, h));
        }
    }

    /**
     * Does the command's work in one transaction on {@code handle}, with the platform's clock, outbox and audit log;
     * throw to roll it back.
     */
    protected abstract void run(Namespace namespace, Platform platform, Handle handle);

    @Override
    public void onError(Cli cli, Namespace namespace, Throwable e) {
        cli.getStdErr().println(getName() + ": " + e.getMessage());
    }
}
