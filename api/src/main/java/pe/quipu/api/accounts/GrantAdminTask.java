package pe.quipu.api.accounts;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.jdbi.v3.core.Jdbi;
import pe.quipu.api.audit.AuditLog;
import pe.quipu.api.domain.DomainException.NotFound;
import pe.quipu.api.domain.Text;
import pe.quipu.core.accounts.EmailIdentity;
import pe.quipu.api.http.OperatorTask;

import java.util.List;
import java.util.Map;
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

    @Override
    protected Object run(Parameters parameters) {
        String email = parameters.required("email");
        return jdbi.inTransaction(h -> {
            AccountRows accounts = h.attach(AccountRows.class);
            AccountRows.Admin row = accounts.lockAdmin(email, EmailIdentity.of(email))
                    .orElseThrow(() -> new NotFound(Text.of("domain.account.no_email", email)));
            if (row.isAdmin()) {
                return new Answer(row.id(), true, false);
            }
            accounts.grantAdmin(row.id());
            audit.record(h, row.id(), "admin.granted", AuditLog.Origin.OPERATOR, Map.of());
            return new Answer(row.id(), true, true);
        });
    }
}
