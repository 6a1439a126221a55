package pe.quipu.core.db;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;

/**
 * The password of the embedded server's superuser, kept in a file beside its data directory ({@code data/postgres}'s
 * is {@code data/postgres.password}; the data directory itself belongs to PostgreSQL), readable and writable by its
 * owner only, from the moment it exists: it is written to a file created with mode 0600 and moved into place.
 *
 * <p>A password being put in place (a new data directory, or one that trusted every local connection) is first kept
 * as {@code postgres.password.new}, and becomes {@code postgres.password} only once the server asks for it
 * ({@link #commit}): the stored password's existence means the server is protected by it, and a start interrupted in
 * between takes the same pending password up again. Callers hold the data directory's lock.
 */
final class ServerPassword {

    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");
    private static final Set<PosixFilePermission> OTHERS = EnumSet.of(PosixFilePermission.GROUP_READ,
            PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.OTHERS_READ,
            PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_EXECUTE);
    private static final SecureRandom RANDOM = new SecureRandom();

    private ServerPassword() {
    }

    /** Where the password of the server over {@code dataDirectory} is kept. */
    static Path file(Path dataDirectory) {
        return dataDirectory.resolveSibling(dataDirectory.getFileName() + ".password");
    }

    /** Where a password not yet in force waits. */
    static Path pendingFile(Path dataDirectory) {
        return dataDirectory.resolveSibling(dataDirectory.getFileName() + ".password.new");
    }

    /** The password in force, if one is stored. */
    static Optional<String> stored(Path dataDirectory) {
        return read(file(dataDirectory));
    }

    /** The pending password: the one an interrupted start left, or a new one. */
    static String pending(Path dataDirectory) {
        Path pending = pendingFile(dataDirectory);
        return read(pending).orElseGet(() -> {
            String password = generate();
            write(pending, password);
            return password;
        });
    }

    /** Takes the stored password back to pending, for a data directory that must be protected again. */
    static void reopen(Path dataDirectory) {
        move(file(dataDirectory), pendingFile(dataDirectory));
    }

    /** The pending password is now in force. */
    static void commit(Path dataDirectory) {
        move(pendingFile(dataDirectory), file(dataDirectory));
    }

    /** 256 random bits, base64url: no character a connection string or initdb's {@code --pwfile} treats specially. */
    static String generate() {
        byte[] bytes = new byte[32];
        RANDOM.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /**
     * The password in {@code file}, if it exists. A file other users may read or write is refused, as libpq refuses
     * a {@code .pgpass} that is: its password must be taken as known.
     */
    private static Optional<String> read(Path file) {
        if (!Files.exists(file)) {
            return Optional.empty();
        }
        try {
            Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(file);
            if (permissions.stream().anyMatch(OTHERS::contains)) {
                throw new IllegalStateException(file + " may be read or changed by other users (mode "
                        + PosixFilePermissions.toString(permissions) + "); it holds the embedded PostgreSQL's"
                        + " password. Make it its owner's only (chmod 600 " + file + ") and, if others may have"
                        + " read it, change the password (docs/security.md, \"The embedded PostgreSQL's password\")");
            }
            String password = Files.readString(file, StandardCharsets.UTF_8).strip();
            if (password.isEmpty()) {
                throw new IllegalStateException(file + " is empty; it should hold the embedded PostgreSQL's password");
            }
            return Optional.of(password);
        } catch (IOException e) {
            throw new UncheckedIOException("could not read " + file, e);
        }
    }

    /** Written to a file made 0600 as it is created, then moved into place: never readable by others. */
    private static void write(Path file, String password) {
        try {
            Path dir = file.toAbsolutePath().getParent();
            Files.createDirectories(dir);
            Path temp = Files.createTempFile(dir, "." + file.getFileName(), ".tmp",
                    PosixFilePermissions.asFileAttribute(OWNER_ONLY));
            try {
                Files.writeString(temp, password + "\n", StandardCharsets.UTF_8);
                Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE);
            } finally {
                Files.deleteIfExists(temp);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not write " + file, e);
        }
    }

    private static void move(Path from, Path to) {
        try {
            Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException("could not move " + from + " to " + to, e);
        }
    }
}
