package pe.quipu.etl.source;

import java.io.BufferedInputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

/**
 * Opens a public data file as published: a zip (streamed entry by entry, never unpacked to disk) or the bare
 * file. The kind is told by the file's first bytes, not its name, so a download kept under a temporary name
 * works too. Used by the padron ({@code .txt} in SUNAT's zip) and padron-extendido ({@code .csv}) jobs.
 */
public final class SourceFile {

    private SourceFile() {
    }

    /** What a job does with its source's bytes. */
    @FunctionalInterface
    public interface Reader<T> {
        T read(InputStream in) throws Exception;
    }

    /**
     * Reads a job's source: the file at {@code file}, or, when {@code url} is given, that address downloaded first
     * to a temporary file (named after {@code job}) that is deleted afterwards, whatever happens.
     *
     * @param suffix as for {@link #open}
     */
    public static <T> T read(String file, String url, String job, String suffix, Reader<T> reader) throws Exception {
        if (url == null) {
            try (InputStream in = open(Path.of(file), suffix)) {
                return reader.read(in);
            }
        }
        Path download = Files.createTempFile("quipu-" + job + "-", ".download");
        try {
            Download.standard().fetch(URI.create(url), download);
            try (InputStream in = open(download, suffix)) {
                return reader.read(in);
            }
        } finally {
            Files.deleteIfExists(download);
        }
    }

    /** @param suffix in a zip, the first entry whose name ends with it is read (else the first file) */
    public static InputStream open(Path file, String suffix) throws IOException {
        InputStream raw = new BufferedInputStream(Files.newInputStream(file), 1 << 16);
        try {
            raw.mark(4);
            byte[] magic = raw.readNBytes(4);
            raw.reset();
            if (magic.length == 4 && magic[0] == 'P' && magic[1] == 'K' && magic[2] == 3 && magic[3] == 4) {
                return firstEntry(new ZipInputStream(raw), file, suffix);
            }
            return raw;
        } catch (IOException | RuntimeException e) {
            raw.close();
            throw e;
        }
    }

    /**
     * SUNAT's zips hold one file (padron_reducido_ruc.txt, PadronRUC_AAAAMM.csv); the first entry with the
     * suffix is taken, or the first file when none has it, so a renamed entry is still read.
     */
    private static InputStream firstEntry(ZipInputStream zip, Path file, String suffix) throws IOException {
        for (ZipEntry entry = zip.getNextEntry(); entry != null; entry = zip.getNextEntry()) {
            if (!entry.isDirectory() && entry.getName().toLowerCase(java.util.Locale.ROOT).endsWith(suffix)) {
                return new EntryStream(zip);
            }
        }
        zip.close();
        // Second pass for a zip whose one file does not have the suffix.
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
