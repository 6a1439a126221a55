package pe.quipu.etl.source;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * An input stream whose bytes a thread of its own reads ahead, in chunks: what it takes to produce them
 * (decompressing a zip, hashing the file, counting its bytes) runs on another processor than the reader's. A reload
 * of the padrón spends a third of its reading in zlib; read ahead, that part leaves the parsing thread.
 *
 * <p>At most {@link #CHUNKS} chunks of {@link #CHUNK} bytes wait at once. A failure of the underlying stream reaches
 * the reader at the point it happened. Closing stops the thread (it does not close the underlying stream, whose
 * owner does).
 */
public final class ReadAhead extends InputStream {

    static final int CHUNK = 1 << 20;
    static final int CHUNKS = 4;
    private static final byte[] END = new byte[0];

    private final BlockingQueue<Object> chunks = new ArrayBlockingQueue<>(CHUNKS);
    private final Thread thread;
    private volatile boolean closed;
    private byte[] current = new byte[0];
    private int length;
    private int position;
    private boolean ended;

    public ReadAhead(InputStream in, String name) {
        thread = Thread.ofPlatform().name(name).daemon().start(() -> fill(in));
    }

    private void fill(InputStream in) {
        try {
            while (!closed) {
                byte[] chunk = new byte[CHUNK];
                int n = in.readNBytes(chunk, 0, CHUNK);
                if (n > 0) {
                    put(new Chunk(chunk, n));
                }
                if (n < CHUNK) {
                    put(END);
                    return;
                }
            }
        } catch (IOException | RuntimeException e) {
            put(e);
        }
    }

    private void put(Object item) {
        try {
            while (!closed && !chunks.offer(item, 100, TimeUnit.MILLISECONDS)) {
                // the reader is behind: wait for room, unless it closed the stream
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private record Chunk(byte[] bytes, int length) {
    }

    /** Whether a chunk is at hand; false at the end of the stream. */
    private boolean next() throws IOException {
        while (position == length) {
            if (ended) {
                return false;
            }
            Object item;
            try {
                item = chunks.take();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while reading ahead");
            }
            if (item == END) {
                ended = true;
                return false;
            }
            if (item instanceof IOException e) {
                ended = true;
                throw new IOException(e.getMessage(), e);
            }
            if (item instanceof RuntimeException e) {
                ended = true;
                throw e;
            }
            Chunk chunk = (Chunk) item;
            current = chunk.bytes();
            length = chunk.length();
            position = 0;
        }
        return true;
    }

    @Override
    public int read() throws IOException {
        return next() ? current[position++] & 0xFF : -1;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        if (!next()) {
            return -1;
        }
        int n = Math.min(len, length - position);
        System.arraycopy(current, position, b, off, n);
        position += n;
        return n;
    }

    @Override
    public void close() {
        closed = true;
        thread.interrupt();
        chunks.clear();
    }
}
