package pe.quipu.core.accounts;

import liquibase.change.custom.CustomTaskChange;
import liquibase.database.Database;
import liquibase.database.jvm.JdbcConnection;
import liquibase.exception.CustomChangeException;
import liquibase.exception.SetupException;
import liquibase.exception.ValidationErrors;
import liquibase.resource.ResourceAccessor;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import pe.quipu.core.db.QuipuJdbi;

import java.util.List;
import java.util.UUID;

/**
 * Changeset 021: fills {@code accounts.email_identity} where changeset 012 left it null, once. PostgreSQL cannot
 * compute {@link EmailIdentity}'s form (no IDNA, and {@code lower()} follows the collation), so Java does, inside the
 * migration (which the API, the ETL and {@code db migrate} all apply), on Liquibase's connection and transaction.
 *
 * <p>Rows are taken oldest first, so when two accounts from before changeset 012 share one identity, the older keeps it;
 * the younger keeps null (it is still found by {@code lower(email)}, exactly as before, see
 * {@link EmailIdentity#MATCHES}) and is named, by id only, in a warning for the operator. Accounts made since
 * changeset 012 always carry their identity.
 */
public final class EmailIdentityBackfill implements CustomTaskChange {

    private static final Logger LOG = LoggerFactory.getLogger(EmailIdentityBackfill.class);

    private int filled;
    private int kept;

    @Override
    public void execute(Database database) throws CustomChangeException {
        try {
            // Liquibase's own connection: the rows change in the changeset's transaction, or not at all. The handle is
            // not closed, as that would close Liquibase's connection.
            Handle handle = QuipuJdbi.configure(Jdbi.create(
                    ((JdbcConnection) database.getConnection()).getUnderlyingConnection())).open();
            Rows rows = handle.attach(Rows.class);
            for (Rows.Row row : rows.withoutIdentity()) {
                // Checked in the statement rather than caught as a unique violation, which would abort the
                // changeset's transaction.
                if (rows.fill(row.id(), EmailIdentity.of(row.email())) == 1) {
                    filled++;
                } else {
                    kept++;
                    LOG.warn("Account {} has the same email identity as an older account; it keeps none and is "
                            + "found by its exact address only (docs/decisions.md, Hardening)", row.id());
                }
            }
        } catch (RuntimeException e) {
            throw new CustomChangeException("could not compute the accounts' email identities", e);
        }
    }

    @Override
    public String getConfirmationMessage() {
        return "Computed the email identity of " + filled + " accounts" + (kept > 0 ? "; " + kept
                + " share one with an older account and keep none" : "");
    }

    @Override
    public void setUp() throws SetupException {
    }

    @Override
    public void setFileOpener(ResourceAccessor resourceAccessor) {
    }

    @Override
    public ValidationErrors validate(Database database) {
        return new ValidationErrors();
    }

    interface Rows {
        record Row(UUID id, String email) {
        }

        @SqlQuery("select id, email from accounts where email_identity is null order by created_at, id")
        @RegisterConstructorMapper(Row.class)
        List<Row> withoutIdentity();

        @SqlUpdate("""
                update accounts set email_identity = :identity
                 where id = :id and email_identity is null
                   and not exists (select 1 from accounts where email_identity = :identity)""")
        int fill(UUID id, String identity);
    }
}
