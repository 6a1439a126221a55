package pe.quipu.api.keys;

import io.dropwizard.core.Configuration;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;
import org.jdbi.v3.core.Handle;
import pe.quipu.api.audit.AuditLog;
import pe.quipu.api.platform.OperatorCommand;
import pe.quipu.api.platform.Platform;
import pe.quipu.api.domain.DomainException.NotFound;
import pe.quipu.api.domain.Text;

import java.time.Clock;

/**
 * {@code revoke-key --prefix qk_live_xxxxxx config.yml}: the key gets 401 from the next request on (the same
 * revocation as {@code DELETE /v1/keys/{id}}, audited as the operator's).
 */
public final class RevokeKeyCommand<C extends Configuration & OperatorCommand.DatabaseConfigured>
        extends OperatorCommand<C> {

    public RevokeKeyCommand(Class<C> configurationClass, Clock clock) {
        super("revoke-key", "Revoke an API key by its prefix (as printed by create-key)", configurationClass, clock);
    }

    @Override
    public void configure(Subparser subparser) {
        super.configure(subparser);
        subparser.addArgument("--prefix").required(true).help("the key's prefix, e.g. qk_live_Ab12Cd");
    }

    @Override
    protected void run(Namespace namespace, Platform platform, Handle handle) {
        String prefix = namespace.getString("prefix").strip();
        KeyIssuer.RevokedKey key = new KeyIssuer(platform.clock(), platform.outbox()).revokeByPrefix(handle, prefix)
                .orElseThrow(() -> new NotFound(Text.of("keys.command.no_key_with_prefix", prefix)));
        platform.audit().record(handle, key.accountId(), "key.revoked", AuditLog.Origin.OPERATOR, key.auditDetails());
        System.err.printf("Revoked API key %s (prefix %s).%n", key.id(), prefix);
    }
}
