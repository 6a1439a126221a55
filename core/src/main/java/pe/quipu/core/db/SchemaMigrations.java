package pe.quipu.core.db;

import liquibase.Scope;
import liquibase.UpdateSummaryOutputEnum;
import liquibase.command.CommandScope;
import liquibase.command.core.UpdateCommandStep;
import liquibase.command.core.helpers.DbUrlConnectionArgumentsCommandStep;
import liquibase.command.core.helpers.ShowSummaryArgument;
import liquibase.database.Database;
import liquibase.database.DatabaseFactory;
import liquibase.database.jvm.JdbcConnection;
import liquibase.resource.ClassLoaderResourceAccessor;
import liquibase.ui.LoggerUIService;

import java.io.OutputStream;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Map;
import java.util.Properties;

/** Connections to a {@link QuipuDatabase} and its schema migrations (the changelog of the migrations module). */
public final class SchemaMigrations {

    /** The changelog in the migrations module; the API, `db migrate` and the ETL all use this same path. */
    public static final String CHANGELOG = "quipu/db/changelog.xml";

    private SchemaMigrations() {
    }

    public static Connection connect(QuipuDatabase database, String purpose) throws SQLException {
        Properties props = new Properties();
        props.setProperty("user", database.user());
        props.setProperty("password", database.password());
        props.setProperty("ApplicationName", QuipuDatabase.applicationName(purpose));
        return DriverManager.getConnection(database.jdbcUrl(), props);
    }

    /**
     * Applies every pending changeset; Liquibase's lock table serialises concurrent callers. Liquibase's
     * messages and its update summary go to the log, so that commands keep standard output for their result.
     */
    public static void apply(QuipuDatabase database) {
        try (Connection connection = connect(database, "migrations")) {
            Database liquibaseDb = DatabaseFactory.getInstance()
                    .findCorrectDatabaseImplementation(new JdbcConnection(connection));
            Scope.child(Map.of(Scope.Attr.ui.name(), new LoggerUIService(),
                            Scope.Attr.resourceAccessor.name(), new ClassLoaderResourceAccessor()),
                    () -> new CommandScope(UpdateCommandStep.COMMAND_NAME)
                            .addArgumentValue(DbUrlConnectionArgumentsCommandStep.DATABASE_ARG, liquibaseDb)
                            .addArgumentValue(UpdateCommandStep.CHANGELOG_FILE_ARG, CHANGELOG)
                            .addArgumentValue(ShowSummaryArgument.SHOW_SUMMARY_OUTPUT, UpdateSummaryOutputEnum.LOG)
                            .setOutput(OutputStream.nullOutputStream())
                            .execute());
        } catch (Exception e) {
            throw new IllegalStateException("could not apply the schema migrations", e);
        }
    }
}
