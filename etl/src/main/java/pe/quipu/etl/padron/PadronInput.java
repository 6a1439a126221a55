package pe.quipu.etl.padron;

import java.io.BufferedInputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

/**
 * Opens the padrón's text, from SUNAT's zip (streamed entry by entry, never unpacked to disk) or from the
 * bare {@code .txt}. The kind is told by the file's first bytes, not its name, so a download kept under a
 * temporary name works too.
 */
public final class PadronInput {

    private PadronInput() {
    }

    public static InputStream open(Path file) throws IOException {
        InputStream raw = new BufferedInputStream(Files.newInputStream(file), 1 << 16);
        try {
            raw.mark(4);
            byte[] magic = raw.readNBytes(4);
            raw.reset();
            if (magic.length == 4 && magic[0] == 'P' && magic[1] == 'K' && magic[2] == 3 && magic[3] == 4) {
                return firstText(new ZipInputStream(raw), file);
            }
            return raw;
        } catch (IOException | RuntimeException e) {
            raw.close();
            throw e;
        }
    }

    /**
     * SUNAT's zip holds one file, padron_reducido_ruc.txt; the first {@code .txt} entry is taken (or the first
     * file when none ends in .txt), so a renamed entry is still read.
     */
    private static InputStream firstText(ZipInputStream zip, Path file) throws IOException {
        for (ZipEntry entry = zip.getNextEntry(); entry != null; entry = zip.getNextEntry()) {
            if (!entry.isDirectory() && entry.getName().toLowerCase(java.util.Locale.ROOT).endsWith(".txt")) {
                return new EntryStream(zip);
            }
        }
        zip.close();
        // Second pass for a zip whose one file is not named .txt.
        ZipInputStream again = new ZipInputStream(new BufferedInputStream(Files.newInputStream(file), 1 << 16));
        for (ZipEntry entry = again.getNextEntry(); entry != null; entry = again.getNextEntry()) {
            if (!entry.isDirectory()) {
                return new EntryStream(again);
            }
        }
        again.close();
        throw new IOException(file + " is a zip without any file in it");
    }

    /** The current entry's bytes; closing it closes the whole zip. */
    private static final class EntryStream extends FilterInputStream {
        EntryStream(ZipInputStream zip) {
            super(zip);
        }
    }
}
