package pe.quipu.etl.source;

import pe.quipu.etl.run.Progress;

import java.io.BufferedInputStream;
import java.io.Closeable;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.function.Consumer;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

/**
 * Opens a public data file as published: a zip (streamed entry by entry, never unpacked to disk) or the bare
 * file. The kind is told by the file's first bytes, not its name, so a download kept under a temporary name
 * works too. Used by the padron ({@code .txt} in SUNAT's zip), SUNAT's lists and premises, and padron-extendido
 * ({@code .csv}). Every byte read from the file goes through a SHA-256 on the way ({@link SourceDigest}), so the
 * file is read once, whether it is a download, a file on disk or a pipe.
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
     * (at most {@code maxDownloadBytes}, {@code etl.maxDownloadBytes}) to a temporary file (named after {@code job})
     * that is deleted afterwards, whatever happens. Once {@code reader} is done, the rest of the file is read too
     * and {@code whenRead} is told the whole file's size and SHA-256.
     *
     * @param suffix as for {@link #open}
     */
    public static <T> T read(String file, String url, String job, String suffix, long maxDownloadBytes,
                             Reader<T> reader, Consumer<SourceDigest> whenRead) throws Exception {
        return read(file, url, job, suffix, maxDownloadBytes, reader, whenRead, Progress.none());
    }

    /**
     * {@link #read}, telling {@code progress} of it: the {@code download} phase while a {@code --url} downloads (bytes
     * of the Content-Length, when the server gives one), then the {@code stage} phase while {@code reader} reads (bytes
     * of the file's size, as stored: a zip's compressed bytes). The reader reports its own lines.
     */
    public static <T> T read(String file, String url, String job, String suffix, long maxDownloadBytes,
                             Reader<T> reader, Consumer<SourceDigest> whenRead, Progress progress) throws Exception {
        if (url == null) {
            return read(Path.of(file), suffix, reader, whenRead, progress);
        }
        Path download = Files.createTempFile("quipu-" + job + "-", ".download");
        try {
            progress.enter(Progress.Phase.DOWNLOAD);
            Download.standard(maxDownloadBytes).fetch(URI.create(url), download, progress);
            return read(download, suffix, reader, whenRead, progress);
        } finally {
            Files.deleteIfExists(download);
        }
    }

    private static <T> T read(Path path, String suffix, Reader<T> reader, Consumer<SourceDigest> whenRead,
                              Progress progress) throws Exception {
        progress.enter(Progress.Phase.STAGE);
        progress.totalBytes(Files.size(path));
        progress.bytes(0);
        try (Opened opened = open(path, suffix, progress)) {
            T result = reader.read(opened.content());
            whenRead.accept(opened.fingerprint().finish());
            return result;
        }
    }

    /** A source opened for reading: the bytes a job reads, and the fingerprint of the whole file under them. */
    record Opened(InputStream content, Fingerprint fingerprint) implements Closeable {
        @Override
        public void close() throws IOException {
            content.close();
        }
    }

    /** @param suffix in a zip, the first entry whose name ends with it is read (else the first file) */
    static Opened open(Path file, String suffix) throws IOException {
        return open(file, suffix, Progress.none());
    }

    /** {@link #open(Path, String)}, telling {@code progress} of the bytes read as they are. */
    static Opened open(Path file, String suffix, Progress progress) throws IOException {
        Fingerprint fingerprint = new Fingerprint(Files.newInputStream(file), progress);
        InputStream raw = new BufferedInputStream(fingerprint, 1 << 16);
        try {
            raw.mark(4);
            byte[] magic = raw.readNBytes(4);
            raw.reset();
            if (magic.length == 4 && magic[0] == 'P' && magic[1] == 'K' && magic[2] == 3 && magic[3] == 4) {
                return firstEntry(new ZipInputStream(raw), fingerprint, file, suffix, progress);
            }
            return new Opened(raw, fingerprint);
        } catch (IOException | RuntimeException e) {
            raw.close();
            throw e;
        }
    }

    /**
     * SUNAT's zips hold one file (padron_reducido_ruc.txt, PadronRUC_AAAAMM.csv); the first entry with the
     * suffix is taken, or the first file when none has it, so a renamed entry is still read.
     */
    private static Opened firstEntry(ZipInputStream zip, Fingerprint fingerprint, Path file, String suffix,
                                     Progress progress) throws IOException {
        for (ZipEntry entry = zip.getNextEntry(); entry != null; entry = zip.getNextEntry()) {
            if (!entry.isDirectory() && entry.getName().toLowerCase(java.util.Locale.ROOT).endsWith(suffix)) {
                return new Opened(new EntryStream(zip), fingerprint);
            }
        }
        zip.close();
        // Second pass for a zip whose one file does not have the suffix; the file is fingerprinted again.
        Fingerprint again = new Fingerprint(Files.newInputStream(file), progress);
        ZipInputStream second = new ZipInputStream(new BufferedInputStream(again, 1 << 16));
        for (ZipEntry entry = second.getNextEntry(); entry != null; entry = second.getNextEntry()) {
            if (!entry.isDirectory()) {
                return new Opened(new EntryStream(second), again);
            }
        }
        second.close();
        throw new IOException(file + " is a zip without any file in it");
    }

    /** The current entry's bytes; closing it closes the whole zip. */
    private static final class EntryStream extends FilterInputStream {
        EntryStream(ZipInputStream zip) {
            super(zip);
        }
    }

    /** The file's bytes as they are read, counted (and the count told to the run's progress) and hashed. */
    static final class Fingerprint extends FilterInputStream {
        private final MessageDigest sha256;
        private final Progress progress;
        private long bytes;

        Fingerprint(InputStream file, Progress progress) {
            super(file);
            this.progress = progress;
            try {
                sha256 = MessageDigest.getInstance("SHA-256");
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("every Java has SHA-256", e);
            }
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0) {
                sha256.update((byte) b);
                progress.bytes(++bytes);
            }
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, len);
            if (n > 0) {
                sha256.update(b, off, n);
                bytes += n;
                progress.bytes(bytes);
            }
            return n;
        }

        @Override
        public long skip(long n) throws IOException {
            byte[] skipped = new byte[(int) Math.min(n, 1 << 16)];
            int read = read(skipped, 0, skipped.length);
            return Math.max(read, 0);
        }

        @Override
        public long transferTo(OutputStream out) throws IOException {
            long total = 0;
            byte[] chunk = new byte[1 << 16];
            for (int n = read(chunk, 0, chunk.length); n >= 0; n = read(chunk, 0, chunk.length)) {
                out.write(chunk, 0, n);
                total += n;
            }
            return total;
        }

        @Override
        public boolean markSupported() {
            return false;
        }

        /** Reads what the job left unread (a zip's directory, say) and returns the whole file's digest. */
        SourceDigest finish() throws IOException {
            transferTo(OutputStream.nullOutputStream());
            return new SourceDigest(bytes, HexFormat.of().formatHex(sha256.digest()));
        }
    }
}
