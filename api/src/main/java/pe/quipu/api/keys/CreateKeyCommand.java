package pe.quipu.api.keys;

import io.dropwizard.core.Configuration;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;
import org.jdbi.v3.core.Handle;
import pe.quipu.api.audit.AuditLog;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.platform.OperatorCommand;
import pe.quipu.api.platform.Platform;
import pe.quipu.api.domain.DomainException.InvalidInput;
import pe.quipu.api.domain.Text;

import java.time.Clock;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * {@code create-key --email E --scopes ruc:read,ubigeos:read [--name N] config.yml}: creates the account if
 * new and an API key, and prints the key once, alone on standard output (details go to standard error).
 */
public final class CreateKeyCommand<C extends Configuration & OperatorCommand.DatabaseConfigured>
        extends OperatorCommand<C> {

    public CreateKeyCommand(Class<C> configurationClass, Clock clock) {
        super("create-key", "Create an API key (and its account if new) and print it once", configurationClass,
                clock);
    }

    @Override
    public void configure(Subparser subparser) {
        super.configure(subparser);
        subparser.addArgument("--email").required(true).help("the account's email; the account is created if new");
        subparser.addArgument("--scopes").required(true)
                .help("comma-separated scopes: " + Arrays.stream(Scope.values()).map(Scope::wireName)
                        .collect(Collectors.joining(", ")));
        subparser.addArgument("--name").setDefault("operator key").help("a name to recognise the key by");
    }

    @Override
    protected void run(Namespace namespace, Platform platform, Handle handle) {
        String email = namespace.getString("email").strip();
        if (!email.matches("[^@\\s]+@[^@\\s]+\\.[^@\\s]+")) {
            throw InvalidInput.of(Text.of("keys.command.email_malformed", email));
        }
        Set<Scope> scopes = parseScopes(namespace.getString("scopes"));
        KeyIssuer issuer = new KeyIssuer(platform.clock(), platform.outbox());
        UUID account = issuer.accountFor(handle, email);
        KeyIssuer.IssuedKey key = issuer.issue(handle, account, namespace.getString("name"), scopes);
        platform.audit().record(handle, account, "key.created", AuditLog.Origin.OPERATOR, key.auditDetails());
        System.err.printf("Created API key %s (prefix %s) for %s with scopes %s.%n", key.id(),
                key.secret().displayPrefix(), email, String.join(",", key.scopes()));
        System.err.println("The key is printed once, below; store it now. Quipu keeps only its hash.");
        System.out.println(key.secret().reveal());
        System.out.flush();
    }

    static Set<Scope> parseScopes(String list) {
        Set<Scope> scopes = EnumSet.noneOf(Scope.class);
        for (String name : list.split(",")) {
            String trimmed = name.strip();
            if (trimmed.isEmpty()) {
                continue;
            }
            scopes.add(Scope.fromWireName(trimmed).orElseThrow(() -> InvalidInput.of(Text.of("keys.scopes.unknown",
                    trimmed, Arrays.stream(Scope.values()).map(Scope::wireName).collect(Collectors.joining(", "))))));
        }
        if (scopes.isEmpty()) {
            throw InvalidInput.of(Text.of("keys.command.scopes_empty"));
        }
        return scopes;
    }
}
