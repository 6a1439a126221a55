package pe.quipu.api.cli;

import io.dropwizard.core.setup.Bootstrap;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;
import pe.quipu.api.QuipuConfiguration;
import pe.quipu.core.audit.AuditLog;
import pe.quipu.core.events.EventOutbox;
import pe.quipu.core.keys.KeyIssuer;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;

/**
 * {@code revoke-key --prefix qk_live_xxxxxx config.yml}: the key gets 401 from the next request on (the same
 * revocation as {@code DELETE /v1/keys/{id}}, audited as the operator's).
 */
public final class RevokeKeyCommand extends OperatorCommand {

    private final EventOutbox outbox;
    private final AuditLog audit;

    public RevokeKeyCommand(Clock clock, EventOutbox outbox, AuditLog audit) {
        super("revoke-key", "Revoke an API key by its prefix (as printed by create-key)", clock);
        this.outbox = outbox;
        this.audit = audit;
    }

    @Override
    public void configure(Subparser subparser) {
        super.configure(subparser);
        subparser.addArgument("--prefix").required(true).help("the key's prefix, e.g. qk_live_Ab12Cd");
    }

    @Override
    protected void run(Namespace namespace, Bootstrap<QuipuConfiguration> bootstrap, Connection connection)
            throws SQLException {
        String prefix = namespace.getString("prefix").strip();
        KeyIssuer.RevokedKey key = new KeyIssuer(clock, outbox).revokeByPrefix(connection, prefix)
                .orElseThrow(() -> new IllegalArgumentException("no working key has the prefix " + prefix));
        audit.record(connection, key.accountId(), "key.revoked", AuditLog.Origin.OPERATOR, key.auditDetails());
        System.err.printf("Revoked API key %s (prefix %s).%n", key.id(), prefix);
    }
}
