package pe.quipu.api.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A webhook receiver on 127.0.0.1 that answers in raw bytes, for answers no HTTP server library would write: a status
 * line followed by headers that never end, ten thousand header lines, a status line that is not HTTP. Each connection
 * reads one request (head and {@code Content-Length} body), then gets the test's {@link Answer}, which writes until it
 * returns or the client hangs up; the receiver then closes the connection and records what happened.
 */
public final class RawHttpReceiver implements AutoCloseable {

    /** What a connection is answered: writes to {@code out} until done, or until a write fails (the client left). */
    @FunctionalInterface
    public interface Answer {
        void write(OutputStream out) throws IOException;

        /** These bytes, then the connection is closed. */
        static Answer bytes(String text) {
            byte[] bytes = text.getBytes(StandardCharsets.ISO_8859_1);
            return out -> out.write(bytes);
        }

        /**
         * {@code head}, then {@code filler} over and over for at most {@code limit}: a header that never ends when
         * the head leaves a header open, or endless header lines when the filler is lines.
         */
        static Answer endless(String head, String filler, Duration limit) {
            byte[] first = head.getBytes(StandardCharsets.ISO_8859_1);
            byte[] chunk = filler.getBytes(StandardCharsets.ISO_8859_1);
            return out -> {
                long deadline = System.nanoTime() + limit.toNanos();
                out.write(first);
                while (System.nanoTime() < deadline) {
                    out.write(chunk);
                }
            };
        }
    }

    /**
     * One answered connection: how many bytes of the answer were written, for how long, and whether the client hung
     * up before the answer was done.
     */
    public record Connection(long bytesWritten, Duration answering, boolean clientHungUp) {
    }

    private final ServerSocket server;
    private final Answer answer;
    private final AtomicInteger accepted = new AtomicInteger();
    private final ConcurrentLinkedQueue<Connection> finished = new ConcurrentLinkedQueue<>();

    private RawHttpReceiver(Answer answer) throws IOException {
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.answer = answer;
        Thread.ofVirtual().name("raw-receiver-accept").start(this::accept);
    }

    public static RawHttpReceiver start(Answer answer) {
        try {
            return new RawHttpReceiver(answer);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public int port() {
        return server.getLocalPort();
    }

    public String url(String path) {
        return "http://127.0.0.1:" + port() + path;
    }

    /** Connections accepted so far. */
    public int accepted() {
        return accepted.get();
    }

    /** Connections whose answer has ended, in the order they ended. */
    public List<Connection> finished() {
        return List.copyOf(finished);
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException e) {
            // closing anyway
        }
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket socket = server.accept();
                accepted.incrementAndGet();
                Thread.ofVirtual().name("raw-receiver-connection").start(() -> serve(socket));
            } catch (IOException e) {
                // closed
            }
        }
    }

    private void serve(Socket socket) {
        try (socket) {
            InputStream in = socket.getInputStream();
            readRequest(in);
            CountingStream out = new CountingStream(socket.getOutputStream());
            long started = System.nanoTime();
            boolean hungUp = false;
            try {
                answer.write(out);
                out.flush();
            } catch (IOException e) {
                hungUp = true;
            }
            finished.add(new Connection(out.count, Duration.ofNanos(System.nanoTime() - started), hungUp));
            if (!hungUp) {
                // Let the client read the whole answer before the close: closing with its bytes unread would reset it.
                socket.shutdownOutput();
                socket.setSoTimeout(10_000);
                while (in.read(new byte[4096]) >= 0) {
                    // until the client closes
                }
            }
        } catch (IOException e) {
            // the client left while the request was read, or before the close
        }
    }

    /** Reads one request: its head up to the empty line, then as many body bytes as its Content-Length says. */
    private static void readRequest(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        byte[] end = {'\r', '\n', '\r', '\n'};
        while (matched < 4) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("the request ended early");
            }
            head.write(b);
            matched = b == end[matched] ? matched + 1 : b == '\r' ? 1 : 0;
        }
        long length = 0;
        for (String line : head.toString(StandardCharsets.ISO_8859_1).split("\r\n")) {
            if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
                length = Long.parseLong(line.substring("content-length:".length()).strip());
            }
        }
        in.readNBytes((int) length);
    }

    private static final class CountingStream extends OutputStream {
        private final OutputStream out;
        private long count;

        CountingStream(OutputStream out) {
            this.out = out;
        }

        @Override
        public void write(int b) throws IOException {
            out.write(b);
            count++;
        }

        @Override
        public void write(byte[] bytes, int offset, int length) throws IOException {
            out.write(bytes, offset, length);
            count += length;
        }

        @Override
        public void flush() throws IOException {
            out.flush();
        }
    }
}
