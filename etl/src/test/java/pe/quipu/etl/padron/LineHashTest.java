package pe.quipu.etl.padron;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A line's fingerprint is XXH3-64 of its bytes, wherever they sit in the buffer. The registry keeps these values
 * ({@code ruc_registry.line_hash}) from one load to the next, so that they are pinned here: another function would
 * make the next load find no line as loaded.
 */
class LineHashTest {

    private static final String LINE = "20100227461|TRANSPORTES CRUZ DEL SUR S.A.C.|ACTIVO|HABIDO|150137|AV.|"
            + "FRANCISCO BOLOGNESI|-|-|495|-|-|-|-|-|";

    @Test
    void the_fingerprint_is_xxh3_64_of_the_lines_bytes() {
        // XXH3_64bits of no input, with no seed: the reference implementation's value.
        assertThat(new LineHash().of(new byte[8], 3, 0)).isEqualTo(0x2D06800538D394C2L);
        byte[] line = LINE.getBytes(StandardCharsets.ISO_8859_1);
        assertThat(new LineHash().of(line, 0, line.length)).isEqualTo(0x1F11BA2D10355FC5L);
    }

    @Test
    void the_same_bytes_anywhere_in_a_buffer_give_the_same_fingerprint_and_one_byte_changed_another() {
        byte[] buffer = ("xx\r\n" + LINE + "\r\n").getBytes(StandardCharsets.ISO_8859_1);
        byte[] line = LINE.getBytes(StandardCharsets.ISO_8859_1);
        LineHash hash = new LineHash();

        assertThat(hash.of(buffer, 4, line.length)).isEqualTo(hash.of(line, 0, line.length));
        line[15] ^= 1;
        assertThat(hash.of(line, 0, line.length)).isNotEqualTo(hash.of(buffer, 4, line.length));
    }
}
