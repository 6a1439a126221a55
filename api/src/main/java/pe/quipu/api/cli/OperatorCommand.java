package pe.quipu.api.cli;

import pe.quipu.core.db.SchemaMigrations;
import io.dropwizard.core.cli.Cli;
import io.dropwizard.core.cli.ConfiguredCommand;
import io.dropwizard.core.setup.Bootstrap;
import net.sourceforge.argparse4j.inf.Namespace;
import pe.quipu.api.QuipuConfiguration;
import pe.quipu.api.db.DatabaseSupport;
import pe.quipu.core.db.QuipuDatabase;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;

/**
 * An operator command that works on the configured database, whether or not the API is running against
 * the same embedded data directory: it attaches to the running server, or starts it and stops it again.
 */
abstract class OperatorCommand extends ConfiguredCommand<QuipuConfiguration> {

    protected final Clock clock;

    OperatorCommand(String name, String description, Clock clock) {
        super(name, description);
        this.clock = clock;
    }

    @Override
    protected final void run(Bootstrap<QuipuConfiguration> bootstrap, Namespace namespace,
                             QuipuConfiguration configuration) throws Exception {
        try (QuipuDatabase database = QuipuDatabase.open(configuration.getDatabase().settings(), "cli")) {
            SchemaMigrations.apply(database);
            try (Connection connection = SchemaMigrations.connect(database, "cli " + getName())) {
                connection.setAutoCommit(false);
                try {
                    run(namespace, bootstrap, connection);
                    connection.commit();
                } catch (Exception e) {
                    connection.rollback();
                    throw e;
                }
            }
        }
    }

    /** Does the command's work in one transaction on {@code connection}; throw to roll it back. */
    protected abstract void run(Namespace namespace, Bootstrap<QuipuConfiguration> bootstrap, Connection connection)
            throws SQLException;

    @Override
    public void onError(Cli cli, Namespace namespace, Throwable e) {
        cli.getStdErr().println(getName() + ": " + e.getMessage());
    }
}
