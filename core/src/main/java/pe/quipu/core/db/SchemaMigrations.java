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

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashSet;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Connections to a {@link QuipuDatabase} and its schema migrations (the changelog of the migrations module). */
public final class SchemaMigrations {

    /** The changelog in the migrations module; the API, `db migrate` and the ETL all use this same path. */
    public static final String CHANGELOG = "quipu/db/changelog.xml";

    private SchemaMigrations() {
    }

    /** A plain JDBC connection: Liquibase takes one, and reads its history through it. */
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
            // Starting Liquibase costs about half a second of class loading on every start of the API and of each
            // ETL run; when every changeset is already recorded there is nothing for it to do.
            if (upToDate(connection)) {
                return;
            }
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

    /**
     * Whether Liquibase's history already records every changeset the bundled changelog declares. Only a changelog
     * made of formatted-SQL includes is read this way; anything else, or any doubt, answers false and Liquibase
     * decides. (`db migrate` always runs Liquibase, checksum validation included.)
     */
    public static boolean upToDate(Connection connection) throws SQLException, IOException {
        Set<String> declared = declaredChangesets();
        if (declared.isEmpty()) {
            return false;
        }
        Set<String> applied = new HashSet<>();
        try (Statement s = connection.createStatement()) {
            try (ResultSet rs = s.executeQuery("select to_regclass('databasechangelog') is not null")) {
                if (!rs.next() || !rs.getBoolean(1)) {
                    return false;
                }
            }
            try (ResultSet rs = s.executeQuery("select author, id from databasechangelog")) {
                while (rs.next()) {
                    applied.add(rs.getString(1) + ":" + rs.getString(2));
                }
            }
        }
        return applied.containsAll(declared);
    }

    private static final Pattern INCLUDE = Pattern.compile("<include\\s+file=\"([^\"]+)\"");
    private static final Pattern CHANGESET = Pattern.compile("(?m)^--changeset\\s+([^:\\s]+:[^\\s]+)");
    private static final Pattern XML_CHANGESET = Pattern.compile("<changeSet\\s([^>]*)>");
    private static final Pattern XML_ID = Pattern.compile("\\bid=\"([^\"]+)\"");
    private static final Pattern XML_AUTHOR = Pattern.compile("\\bauthor=\"([^\"]+)\"");

    /**
     * author:id of every changeset in the changelog's included files (formatted SQL, or XML changelogs of plain
     * {@code changeSet}s, such as a custom change's); empty when it cannot tell.
     */
    public static Set<String> declaredChangesets() throws IOException {
        String changelog = resource(CHANGELOG);
        if (changelog == null || changelog.contains("<changeSet") || changelog.contains("includeAll")) {
            return Set.of();
        }
        Set<String> ids = new HashSet<>();
        Matcher include = INCLUDE.matcher(changelog);
        while (include.find()) {
            String file = include.group(1);
            String text = file.endsWith(".sql") || file.endsWith(".xml") ? resource(file) : null;
            if (text == null || text.contains("<include")) {
                return Set.of();
            }
            if (file.endsWith(".sql")) {
                Matcher changeset = CHANGESET.matcher(text);
                while (changeset.find()) {
                    ids.add(changeset.group(1));
                }
                continue;
            }
            Matcher changeset = XML_CHANGESET.matcher(text);
            while (changeset.find()) {
                Matcher id = XML_ID.matcher(changeset.group(1));
                Matcher author = XML_AUTHOR.matcher(changeset.group(1));
                if (!id.find() || !author.find()) {
                    return Set.of();
                }
                ids.add(author.group(1) + ":" + id.group(1));
            }
        }
        return ids;
    }

    private static String resource(String path) throws IOException {
        try (InputStream in = SchemaMigrations.class.getClassLoader().getResourceAsStream(path)) {
            return in == null ? null : new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
