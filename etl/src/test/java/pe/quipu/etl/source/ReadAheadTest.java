package pe.quipu.etl.source;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A stream read ahead on a thread of its own gives the same bytes, its failure where it happened, and stops closed. */
class ReadAheadTest {

    @Test
    void the_bytes_come_through_whole_and_in_order_across_chunks() throws IOException {
        byte[] bytes = new byte[3 * ReadAhead.CHUNK + 12_345];
        new Random(3).nextBytes(bytes);
        try (ReadAhead ahead = new ReadAhead(new ByteArrayInputStream(bytes), "test-reader")) {
            byte[] read = new byte[bytes.length];
            int n = 0;
            // Odd read sizes, and single bytes, across the chunks' edges.
            while (n < read.length) {
                if (n % 7 == 0) {
                    int b = ahead.read();
                    assertThat(b).isNotNegative();
                    read[n++] = (byte) b;
                } else {
                    int got = ahead.read(read, n, Math.min(read.length - n, 70_001));
                    assertThat(got).isPositive();
                    n += got;
                }
            }
            assertThat(read).isEqualTo(bytes);
            assertThat(ahead.read()).isEqualTo(-1);
            assertThat(ahead.read(read, 0, 10)).isEqualTo(-1);
        }
        try (ReadAhead empty = new ReadAhead(InputStream.nullInputStream(), "test-reader")) {
            assertThat(empty.read()).isEqualTo(-1);
        }
    }

    @Test
    void a_failure_of_the_stream_reaches_the_reader_after_the_bytes_before_it() throws IOException {
        InputStream failing = new InputStream() {
            private int left = ReadAhead.CHUNK + 10;

            @Override
            public int read() throws IOException {
                if (left <= 0) {
                    throw new IOException("disk gone");
                }
                left--;
                return 'x';
            }
        };
        try (ReadAhead ahead = new ReadAhead(failing, "test-reader")) {
            assertThat(ahead.readNBytes(ReadAhead.CHUNK)).hasSize(ReadAhead.CHUNK);
            assertThatThrownBy(ahead::readAllBytes).isInstanceOf(IOException.class).hasMessageContaining("disk gone");
        }
    }

    @Test
    void closing_it_stops_its_thread_even_while_the_stream_has_more() throws Exception {
        CountDownLatch reading = new CountDownLatch(1);
        InputStream endless = new InputStream() {
            @Override
            public int read() {
                reading.countDown();
                return 'y';
            }
        };
        ReadAhead ahead = new ReadAhead(endless, "test-reader-endless");
        assertThat(ahead.read()).isEqualTo('y');
        assertThat(reading.await(5, TimeUnit.SECONDS)).isTrue();
        ahead.close();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (threadAlive("test-reader-endless") && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(threadAlive("test-reader-endless")).isFalse();
    }

    private static boolean threadAlive(String name) {
        return Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().equals(name) && t.isAlive());
    }
}
