package pe.quipu.core.db;

import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.argument.AbstractArgumentFactory;
import org.jdbi.v3.core.argument.Argument;
import org.jdbi.v3.core.config.ConfigRegistry;
import org.jdbi.v3.core.statement.StatementExceptions;
import org.jdbi.v3.sqlobject.SqlObjectPlugin;

import java.sql.Types;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Properties;
import java.util.UUID;

/**
 * How every Quipu process talks to its database: Jdbi, with SQL objects (interfaces whose methods carry their SQL)
 * as the house style. The API, its operator commands, the ETL and the tests configure their Jdbi here, so that a
 * statement behaves the same whoever runs it.
 */
public final class QuipuJdbi {

    private QuipuJdbi() {
    }

    /**
     * Applies Quipu's settings to {@code jdbi}:
     * <ul>
     *   <li>SQL objects;</li>
     *   <li>an {@link Instant} is bound as a {@code timestamptz} at UTC and read back from one: a
     *   {@code java.sql.Timestamp} would pass through the JVM's default time zone;</li>
     *   <li>exception messages never quote bound values (emails, password hashes, key hashes): an unexpected failure
     *   is logged with its message.</li>
     * </ul>
     */
    public static Jdbi configure(Jdbi jdbi) {
        jdbi.installPlugin(new SqlObjectPlugin());
        jdbi.registerArgument(new InstantArgument());
        // A null UUID (an event of no account) typed as OTHER: PostgreSQL gives it the column's type, where Jdbi's
        // default would send a varchar that a uuid column refuses.
        jdbi.registerArgument(new AbstractArgumentFactory<UUID>(Types.OTHER) {
            @Override
            protected Argument build(UUID value, ConfigRegistry config) {
                return (position, statement, ctx) -> statement.setObject(position, value);
            }
        });
        // A date column takes the date as is, not through java.sql.Date and the JVM's time zone.
        jdbi.registerArgument(new AbstractArgumentFactory<LocalDate>(Types.DATE) {
            @Override
            protected Argument build(LocalDate value, ConfigRegistry config) {
                return (position, statement, ctx) -> statement.setObject(position, value);
            }
        });
        jdbi.registerColumnMapper(Instant.class, (rs, column, ctx) -> {
            OffsetDateTime at = rs.getObject(column, OffsetDateTime.class);
            return at == null ? null : at.toInstant();
        });
        jdbi.getConfig(StatementExceptions.class).setMessageRendering(StatementExceptions.MessageRendering.NONE);
        return jdbi;
    }

    /**
     * A Jdbi opening a connection of its own for each handle, tagged {@code quipu <purpose> (pid N)} (see
     * {@link QuipuDatabase#applicationName}): for processes that need no pool (operator commands, tests).
     */
    public static Jdbi connectingTo(QuipuDatabase database, String purpose) {
        Properties props = new Properties();
        props.setProperty("user", database.user());
        props.setProperty("password", database.password());
        props.setProperty("ApplicationName", QuipuDatabase.applicationName(purpose));
        return configure(Jdbi.create(database.jdbcUrl(), props));
    }

    private static final class InstantArgument extends AbstractArgumentFactory<Instant> {
        InstantArgument() {
            super(Types.TIMESTAMP_WITH_TIMEZONE);
        }

        @Override
        protected Argument build(Instant value, ConfigRegistry config) {
            return (position, statement, ctx) -> statement.setObject(position, value.atOffset(ZoneOffset.UTC));
        }
    }
}
