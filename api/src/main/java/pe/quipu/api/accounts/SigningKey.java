package pe.quipu.api.accounts;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.KeyUse;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.text.ParseException;
import java.util.UUID;

/**
 * The private key that signs Quipu's access tokens: EC P-256 (ES256), kept as a JWK file. Production reads it from
 * {@code JWT_SIGNING_KEY}; development generates one on first start and keeps it under {@code ./data/}, so tokens
 * survive restarts and every instance on the same data directory signs with the same key.
 */
public final class SigningKey {

    private SigningKey() {
    }

    /**
     * @param configuredFile  {@code auth.signingKeyFile} (JWT_SIGNING_KEY), empty when unset
     * @param developmentFile where development keeps its generated key
     */
    public static ECKey load(String configuredFile, String developmentFile, boolean production) {
        if (!configuredFile.isBlank()) {
            return read(Path.of(configuredFile));
        }
        if (production) {
            throw new IllegalStateException("JWT_SIGNING_KEY is required in production: the path of a file holding the "
                    + "EC P-256 signing key as a JWK (java -jar quipu-api.jar generate-signing-key FILE writes one)");
        }
        Path file = Path.of(developmentFile);
        if (!Files.exists(file)) {
            write(generate(), file);
        }
        return read(file);
    }

    public static ECKey generate() {
        try {
            return new ECKeyGenerator(Curve.P_256)
                    .keyID(UUID.randomUUID().toString())
                    .keyUse(KeyUse.SIGNATURE)
                    .algorithm(JWSAlgorithm.ES256)
                    .generate();
        } catch (JOSEException e) {
            throw new IllegalStateException("cannot generate an EC P-256 key", e);
        }
    }

    /**
     * Writes the key readable by its owner only. Written beside the target and linked into place, so two processes
     * starting at once end up with one key (the second link fails and that process reads the first's).
     */
    public static void write(ECKey key, Path file) {
        try {
            Path dir = file.toAbsolutePath().getParent();
            Files.createDirectories(dir);
            Path temp = Files.createTempFile(dir, ".jwt-signing-key", ".tmp",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            try {
                Files.writeString(temp, key.toJSONString(), StandardCharsets.UTF_8);
                Files.createLink(file, temp);
            } catch (FileAlreadyExistsException raced) {
                // Another process wrote it first: use theirs.
            } finally {
                Files.deleteIfExists(temp);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the JWT signing key to " + file, e);
        }
    }

    private static ECKey read(Path file) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the JWT signing key " + file, e);
        }
        ECKey key;
        try {
            key = ECKey.parse(text);
        } catch (ParseException e) {
            // The message would quote the file's content: say only what is wrong.
            throw new IllegalStateException("the JWT signing key " + file + " is not an EC JWK");
        }
        if (!Curve.P_256.equals(key.getCurve()) || !key.isPrivate()) {
            throw new IllegalStateException("the JWT signing key " + file + " must be a private EC P-256 JWK");
        }
        if (key.getKeyID() == null) {
            throw new IllegalStateException("the JWT signing key " + file + " needs a kid");
        }
        return key;
    }
}
