package pe.quipu.api.cli;

import io.dropwizard.core.setup.Bootstrap;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;
import pe.quipu.api.QuipuConfiguration;
import pe.quipu.core.audit.AuditLog;
import pe.quipu.core.events.EventOutbox;
import pe.quipu.core.keys.KeyIssuer;
import pe.quipu.core.keys.Scope;

import java.sql.Connection;
import java.sql.SQLException;
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
public final class CreateKeyCommand extends OperatorCommand {

    private final EventOutbox outbox;
    private final AuditLog audit;

    public CreateKeyCommand(Clock clock, EventOutbox outbox, AuditLog audit) {
        super("create-key", "Create an API key (and its account if new) and print it once", clock);
        this.outbox = outbox;
        this.audit = audit;
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
    protected void run(Namespace namespace, Bootstrap<QuipuConfiguration> bootstrap, Connection connection)
            throws SQLException {
        String email = namespace.getString("email").strip();
        if (!email.matches("[^@\\s]+@[^@\\s]+\\.[^@\\s]+")) {
            throw new IllegalArgumentException("--email must be an email address, got '" + email + "'");
        }
        Set<Scope> scopes = parseScopes(namespace.getString("scopes"));
        KeyIssuer issuer = new KeyIssuer(clock, outbox);
        UUID account = issuer.accountFor(connection, email);
        KeyIssuer.IssuedKey key = issuer.issue(connection, account, namespace.getString("name"), scopes);
        audit.record(connection, account, "key.created", AuditLog.Origin.OPERATOR, key.auditDetails());
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
            scopes.add(Scope.fromWireName(trimmed).orElseThrow(() -> new IllegalArgumentException(
                    "unknown scope '" + trimmed + "'; known scopes: " + Arrays.stream(Scope.values())
                            .map(Scope::wireName).collect(Collectors.joining(", ")))));
        }
        if (scopes.isEmpty()) {
            throw new IllegalArgumentException("--scopes must name at least one scope");
        }
        return scopes;
    }
}
