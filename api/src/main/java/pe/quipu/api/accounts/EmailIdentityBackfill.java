package pe.quipu.api.accounts;

import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.UnableToExecuteStatementException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import pe.quipu.api.domain.EmailIdentity;

import java.sql.SQLException;
import java.util.List;
import java.util.UUID;

/**
 * Fills {@code accounts.email_identity} where it is null (changeset 012): PostgreSQL cannot compute
 * {@link EmailIdentity}'s form, so Java does, at every start, before the API serves. Rows are taken oldest first, so
 * when two accounts from before the change share one identity, the older keeps it; the younger keeps null (it is
 * still found by {@code lower(email)}, exactly as before) and is named, by id only, in a warning for the operator.
 */
public final class EmailIdentityBackfill {

    private static final Logger LOG = LoggerFactory.getLogger(EmailIdentityBackfill.class);
    private static final String UNIQUE_VIOLATION = "23505";

    private EmailIdentityBackfill() {
    }

    record Row(UUID id, String email) {
    }

    /** Returns how many rows were filled. */
    public static int run(Jdbi jdbi) {
        List<Row> rows = jdbi.withHandle(h -> h.createQuery(
                        "select id, email from accounts where email_identity is null order by created_at, id")
                .map((rs, ctx) -> new Row(rs.getObject("id", UUID.class), rs.getString("email")))
                .list());
        int filled = 0;
        for (Row row : rows) {
            try {
                filled += jdbi.withHandle(h -> h.createUpdate(
                                "update accounts set email_identity = :identity where id = :id and email_identity is null")
                        .bind("identity", EmailIdentity.of(row.email()))
                        .bind("id", row.id())
                        .execute());
            } catch (UnableToExecuteStatementException e) {
                if (e.getCause() instanceof SQLException sql && UNIQUE_VIOLATION.equals(sql.getSQLState())) {
                    LOG.warn("Account {} has the same email identity as an older account; it keeps none and is found "
                            + "by its exact address only (docs/decisions.md, Hardening)", row.id());
                } else {
                    throw e;
                }
            }
        }
        if (filled > 0) {
            LOG.info("Computed the email identity of {} accounts", filled);
        }
        return filled;
    }
}
