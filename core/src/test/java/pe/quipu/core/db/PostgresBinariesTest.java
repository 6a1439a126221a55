package pe.quipu.core.db;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.OutputStream;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.zip.CRC32;

import static org.assertj.core.api.Assertions.assertThat;

/** Where the embedded server's binaries are unpacked: a folder named without reading the archive when a jar holds it. */
class PostgresBinariesTest {

    @Test
    void an_archive_in_a_jar_is_known_by_its_entry_crc_and_size_and_one_elsewhere_by_nothing(@TempDir Path dir)
            throws Exception {
        byte[] archive = "not really an xz archive".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        Path jar = dir.resolve("binaries.jar");
        try (OutputStream out = Files.newOutputStream(jar); JarOutputStream zip = new JarOutputStream(out)) {
            zip.putNextEntry(new JarEntry("postgres-linux-x86_64.txz"));
            zip.write(archive);
            zip.closeEntry();
        }
        CRC32 crc = new CRC32();
        crc.update(archive);

        URL inJar = new URL("jar:" + jar.toUri() + "!/postgres-linux-x86_64.txz");
        assertThat(PostgresBinaries.jarEntryIdentity(inJar))
                .isEqualTo("crc" + Long.toHexString(crc.getValue()) + "-" + archive.length);
        Path file = Files.write(dir.resolve("postgres-linux-x86_64.txz"), archive);
        assertThat(PostgresBinaries.jarEntryIdentity(file.toUri().toURL())).isNull();
    }

    @Test
    void the_binaries_on_the_classpath_are_unpacked_once_and_found_again() {
        Path home = PostgresBinaries.unpacked();
        assertThat(home.getFileName().toString()).startsWith("pg-crc");
        assertThat(home.resolve("bin").resolve("postgres")).isExecutable();
        assertThat(PostgresBinaries.unpacked()).isEqualTo(home);
    }
}
