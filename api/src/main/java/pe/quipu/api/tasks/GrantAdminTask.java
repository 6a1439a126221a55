package pe.quipu.api.tasks;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.jdbi.v3.core.Jdbi;
import pe.quipu.api.errors.ApiProblem;
import pe.quipu.api.errors.ProblemType;
import pe.quipu.core.audit.AuditLog;

import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * {@code grant-admin email=…}: the account becomes an administrator (it may subscribe its webhooks to
 * {@code etl.run.*}), with an {@code admin.granted} audit row. Granting it again changes nothing.
 */
public final class GrantAdminTask extends OperatorTask {

    private final transient Jdbi jdbi;
    private final transient AuditLog audit;

    public GrantAdminTask(Jdbi jdbi, AuditLog audit, ObjectMapper json) {
        super("grant-admin", List.of("email"), json);
        this.jdbi = jdbi;
        this.audit = audit;
    }

    record Answer(UUID accountId, boolean isAdmin, boolean changed) {
    }

    private record Row(UUID id, boolean admin) {
    }

    @Override
    protected Object run(Parameters parameters) {
        String email = parameters.required("email");
        try {
            return jdbi.inTransaction(h -> {
                Optional<Row> account = h.createQuery("""
                                select id, is_admin from accounts where lower(email) = lower(:email) and deleted_at is null
                                   for no key update""")
                        .bind("email", email)
                        .map((rs, ctx) -> new Row(rs.getObject("id", UUID.class), rs.getBoolean("is_admin")))
                        .findOne();
                Row row = account.orElseThrow(() ->
                        ApiProblem.of(ProblemType.NOT_FOUND, "No account has the email " + email));
                if (row.admin()) {
                    return new Answer(row.id(), true, false);
                }
                h.createUpdate("update accounts set is_admin = true where id = :id").bind("id", row.id()).execute();
                audit.record(h.getConnection(), row.id(), "admin.granted", AuditLog.Origin.OPERATOR, Map.of());
                return new Answer(row.id(), true, true);
            });
        } catch (SQLException e) {
            throw new IllegalStateException("grant-admin failed", e);
        }
    }
}
