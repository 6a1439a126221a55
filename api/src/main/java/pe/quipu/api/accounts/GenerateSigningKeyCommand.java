package pe.quipu.api.accounts;

import io.dropwizard.core.cli.Command;
import io.dropwizard.core.setup.Bootstrap;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;
import pe.quipu.api.domain.Text;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@code generate-signing-key FILE}: writes a new EC P-256 JWT signing key (a private JWK, mode 600) for
 * production's {@code JWT_SIGNING_KEY}. Refuses to overwrite: replacing the key logs every session out.
 */
public final class GenerateSigningKeyCommand extends Command {

    public GenerateSigningKeyCommand() {
        super("generate-signing-key", "Writes a new JWT signing key file for JWT_SIGNING_KEY");
    }

    @Override
    public void configure(Subparser subparser) {
        subparser.addArgument("file").help("where to write the key (must not exist)");
    }

    @Override
    public void run(Bootstrap<?> bootstrap, Namespace namespace) {
        Path file = Path.of(namespace.getString("file"));
        if (Files.exists(file)) {
            throw new IllegalArgumentException(Text.of("accounts.signing_key.file_exists", file).english());
        }
        SigningKey.write(SigningKey.generate(), file);
        System.err.println("Wrote a new signing key to " + file + "; set JWT_SIGNING_KEY=" + file.toAbsolutePath());
    }
}
