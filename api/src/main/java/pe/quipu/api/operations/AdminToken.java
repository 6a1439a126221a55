package pe.quipu.api.operations;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * The operator tasks' bearer token (contract §13). Production reads it from {@code QUIPU_ADMIN_TOKEN_FILE} and refuses
 * to start without it; development generates one into {@code ./data/admin-token} (mode 0600) on first start, so that
 * {@code ./quipu task} works at once and every instance on the same data directory shares it.
 */
public final class AdminToken {

    /** A token shorter than this is refused: it could be guessed or mistyped into something weak. */
    static final int MINIMUM_LENGTH = 32;

    private AdminToken() {
    }

    /** The token, read (and in development first generated) as the settings say. Never logged. */
    public static String load(AdminSettings settings, boolean production) {
        if (!settings.getTokenFile().isBlank()) {
            return read(Path.of(settings.getTokenFile()), "QUIPU_ADMIN_TOKEN_FILE");
        }
        if (production) {
            throw new IllegalStateException("QUIPU_ADMIN_TOKEN_FILE is required in production: the path of a file"
                    + " holding the operator tasks' bearer token, at least " + MINIMUM_LENGTH + " characters"
                    + " (e.g. openssl rand -hex 32 > admin-token; chmod 600 admin-token)");
        }
        Path file = Path.of(settings.getDevelopmentTokenFile());
        if (!Files.exists(file)) {
            write(generate(), file);
        }
        return read(file, "adminTasks.developmentTokenFile");
    }

    /** 32 random bytes, base64url: 43 characters. */
    static String generate() {
        byte[] bytes = new byte[32];
        new SecureRandom().nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /** Readable by its owner only; linked into place, so two processes starting at once end up with one token. */
    static void write(String token, Path file) {
        try {
            Path dir = file.toAbsolutePath().getParent();
            Files.createDirectories(dir);
            Path temp = Files.createTempFile(dir, ".admin-token", ".tmp",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            try {
                Files.writeString(temp, token + "\n", StandardCharsets.UTF_8);
                Files.createLink(file, temp);
            } catch (FileAlreadyExistsException raced) {
                // Another process wrote it first: use theirs.
            } finally {
                Files.deleteIfExists(temp);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the admin token to " + file, e);
        }
    }

    /** The file's one line, without surrounding white space; refused when empty, short or not one printable word. */
    public static String read(Path file, String setting) {
        String token;
        try {
            token = Files.readString(file, StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the admin token " + file + " (" + setting + ")", e);
        }
        // The messages never quote the file: it is a secret.
        if (token.length() < MINIMUM_LENGTH) {
            throw new IllegalStateException("the admin token " + file + " (" + setting + ") must hold at least "
                    + MINIMUM_LENGTH + " characters");
        }
        if (!token.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
            throw new IllegalStateException("the admin token " + file + " (" + setting + ") must be one line of"
                    + " printable ASCII without spaces");
        }
        return token;
    }
}
