package pe.quipu.etl.source;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Lines of a source file: LF or CRLF, the last one without either, and none over 64 KiB. */
class SourceLinesTest {

    private static final int MAX = SourceLines.MAX_LINE_BYTES;

    @Test
    void lines_end_with_lf_or_crlf_and_the_last_may_end_with_neither() throws IOException {
        assertThat(latin1("a\r\nb\nc")).containsExactly("a", "b", "c");
        assertThat(latin1("a\r\n\r\nb\n")).containsExactly("a", "", "b");
        assertThat(latin1("")).isEmpty();
        assertThat(latin1("ÑANDÚ\r\n")).containsExactly("ÑANDÚ");
        assertThat(lines(SourceLines.utf8(in("ÑANDÚ\n\uFEFFx\n".getBytes(StandardCharsets.UTF_8)))))
                .containsExactly("ÑANDÚ", "\uFEFFx");
    }

    @Test
    void a_line_of_64_kib_is_read_and_one_byte_more_is_refused_naming_its_line() throws IOException {
        String longest = "x".repeat(MAX);
        assertThat(latin1("h\n" + longest + "\r\n" + longest + "\nz")).containsExactly("h", longest, longest, "z");
        assertThat(latin1(longest)).containsExactly(longest);

        for (String tooLong : List.of("h\nok\n" + longest + "y\r\nz", "h\nok\n" + longest + "y", "h\nok\n" + longest
                + "\r\r\n", "h\nok\n" + "x".repeat(10 * MAX))) {
            SourceLines lines = SourceLines.latin1(in(tooLong.getBytes(StandardCharsets.ISO_8859_1)));
            assertThat(lines.next()).isEqualTo("h");
            assertThat(lines.next()).isEqualTo("ok");
            assertThatThrownBy(lines::next).isInstanceOf(SourceLines.LineTooLongException.class)
                    .hasMessageStartingWith("line 3 is over 65536 bytes");
        }
    }

    @Test
    void the_limit_counts_bytes_not_characters() {
        // 40,000 Ñ are 80,000 bytes in UTF-8.
        SourceLines lines = SourceLines.utf8(in(("Ñ".repeat(40_000) + "\n").getBytes(StandardCharsets.UTF_8)));
        assertThatThrownBy(lines::next).isInstanceOf(SourceLines.LineTooLongException.class)
                .hasMessageStartingWith("line 1 is over");
    }

    @Test
    void an_endless_line_is_refused_after_reading_little_more_than_the_limit() {
        long[] served = {0};
        InputStream endless = new InputStream() {
            @Override
            public int read() {
                served[0]++;
                return 'x';
            }

            @Override
            public int read(byte[] b, int off, int len) {
                java.util.Arrays.fill(b, off, off + len, (byte) 'x');
                served[0] += len;
                return len;
            }
        };
        assertThatThrownBy(SourceLines.latin1(endless)::next).isInstanceOf(SourceLines.LineTooLongException.class);
        assertThat(served[0]).isLessThanOrEqualTo(2L * MAX);
    }

    private static List<String> latin1(String text) throws IOException {
        return lines(SourceLines.latin1(in(text.getBytes(StandardCharsets.ISO_8859_1))));
    }

    private static List<String> lines(SourceLines lines) throws IOException {
        List<String> all = new ArrayList<>();
        for (String line = lines.next(); line != null; line = lines.next()) {
            all.add(line);
        }
        return all;
    }

    private static InputStream in(byte[] bytes) {
        return new ByteArrayInputStream(bytes);
    }
}
