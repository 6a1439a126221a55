package pe.quipu.core.io;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Folders and what they hold. */
public final class FileTrees {

    private FileTrees() {
    }

    /** Deletes {@code root} and everything under it, deepest first; nothing when it does not exist. */
    public static void delete(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        } catch (UncheckedIOException e) {
            // Files.walk reports what it meets while walking this way.
            throw e.getCause();
        }
    }
}
