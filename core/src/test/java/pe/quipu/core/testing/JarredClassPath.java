package pe.quipu.core.testing;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/**
 * The test JVM's class path for a child JVM that trains or uses an AOT cache: every folder of classes made a jar in
 * a folder of the test's, as in the fat jars, because the JVM archives classes from jars only. Test classes are left
 * out.
 */
public final class JarredClassPath {

    private JarredClassPath() {
    }

    /** The class path, its folders jarred into {@code work}. */
    public static String of(Path work) throws IOException {
        List<String> entries = new ArrayList<>();
        int n = 0;
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path path = Path.of(entry);
            if (!Files.isDirectory(path)) {
                entries.add(entry);
            } else if (!path.getFileName().toString().equals("test-classes")) {
                entries.add(jar(path, work.resolve("classes-" + n++ + ".jar")).toString());
            }
        }
        return String.join(File.pathSeparator, entries);
    }

    private static Path jar(Path classes, Path jar) throws IOException {
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar));
             Stream<Path> files = Files.walk(classes)) {
            for (Path file : files.filter(Files::isRegularFile).sorted().toList()) {
                out.putNextEntry(new JarEntry(classes.relativize(file).toString().replace(File.separatorChar, '/')));
                Files.copy(file, out);
                out.closeEntry();
            }
        }
        return jar;
    }
}
