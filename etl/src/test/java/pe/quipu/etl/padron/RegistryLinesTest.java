package pe.quipu.etl.padron;

import org.junit.jupiter.api.Test;
import pe.quipu.core.ruc.Ruc;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The registry's lines in memory: which RUC a line's first bytes name, its fingerprint, and what no line named. */
class RegistryLinesTest {

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static long hash(String line) {
        byte[] b = bytes(line);
        return new LineHash().of(b, 0, b.length);
    }

    @Test
    void a_line_is_known_by_its_ruc_and_the_fingerprint_of_its_bytes() {
        String line = "20100227461|TRANSPORTES CRUZ DEL SUR S.A.C.|ACTIVO|HABIDO|150137|AV.|FRANCISCO BOLOGNESI|-|-|495|";
        RegistryLines lines = new RegistryLines.Builder().add(bytes(line), hash(line)).build();

        int at = lines.find(bytes(line), 0);
        assertThat(at).isZero();
        assertThat(lines.sameLine(hash(line))).isTrue();
        assertThat(lines.sameLine(hash(line.replace("ACTIVO", "BAJA DE OFICIO")))).isFalse();
        // Another RUC, a RUC-shaped text of another prefix, and text that is no RUC at all.
        assertThat(lines.find(bytes("20100227470|X|"), 0)).isEqualTo(-1);
        assertThat(lines.find(bytes("30100227461|X|"), 0)).isEqualTo(-1);
        assertThat(lines.find(bytes("2010022746A|X|"), 0)).isEqualTo(-1);
        assertThat(lines.find(bytes("2010022746"), 0)).isEqualTo(-1);
        // The bytes may start anywhere in a buffer.
        assertThat(lines.find(bytes("xx" + line), 2)).isZero();
    }

    @Test
    void a_record_whose_line_is_unknown_matches_no_line() {
        String line = "10412345678|QUISPE MAMANI ROSA|ACTIVO|HABIDO|-|-|-|-|-|-|-|-|-|-|-|";
        RegistryLines lines = new RegistryLines.Builder().addWithoutLine(bytes(line)).build();

        assertThat(lines.find(bytes(line), 0)).isZero();
        assertThat(lines.sameLine(hash(line))).isFalse();
        // No line's fingerprint is 0, the mark of an unknown line, even one whose top bits are all zero.
        assertThat(RegistryLines.fingerprint(0L)).isEqualTo(1L);
        assertThat(RegistryLines.fingerprint(0x7fffL)).isEqualTo(1L);
        assertThat(RegistryLines.fingerprint(-1L)).isEqualTo((1L << RegistryLines.FINGERPRINT_BITS) - 1);
    }

    @Test
    void the_records_no_line_named_are_listed_with_their_check_digits_in_ruc_order() {
        Random random = new Random(7);
        String[] prefixes = {"10", "15", "16", "17", "20"};
        TreeMap<String, Long> registry = new TreeMap<>();
        while (registry.size() < 5_000) {
            String firstTen = prefixes[random.nextInt(prefixes.length)] + String.format("%08d", random.nextInt(100_000_000));
            registry.put(Ruc.completing(firstTen).value(), random.nextLong());
        }
        RegistryLines.Builder builder = new RegistryLines.Builder();
        // In no particular order, as the table gives them.
        List<String> shuffled = new ArrayList<>(registry.keySet());
        java.util.Collections.shuffle(shuffled, random);
        shuffled.forEach(ruc -> builder.add(bytes(ruc), registry.get(ruc)));
        RegistryLines lines = builder.build();
        assertThat(lines.size()).isEqualTo(5_000);

        List<String> unseen = new ArrayList<>();
        for (String ruc : registry.keySet()) {
            int at = lines.find(bytes(ruc), 0);
            assertThat(at).as(ruc).isNotNegative();
            assertThat(lines.sameLine(registry.get(ruc))).as(ruc).isTrue();
            assertThat(lines.seen(at)).isFalse();
            if (random.nextInt(10) == 0) {
                unseen.add(ruc);
            } else {
                lines.see(at);
                assertThat(lines.seen(at)).isTrue();
            }
        }
        List<String> listed = new ArrayList<>();
        lines.forEachUnseen(listed::add);
        assertThat(listed).isEqualTo(unseen).isNotEmpty();
    }

    @Test
    void a_ruc_that_is_not_valid_cannot_be_in_the_registry() {
        assertThatThrownBy(() -> new RegistryLines.Builder().add(bytes("99999999999"), 1L))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void the_comparison_is_kept_in_memory_when_the_heap_has_room_for_it_beside_the_run() {
        long heap = 256L << 20;
        // The real padrón's 18.3 M records fit a 256 MB heap; 30 M do not, and are compared in the database.
        assertThat(RegistryLines.fits(18_300_000, heap)).isTrue();
        assertThat(RegistryLines.fits(30_000_000, heap)).isFalse();
        assertThat(RegistryLines.heapNeeded(18_300_000)).isLessThan(heap - RegistryLines.RESERVE);
        // A registry whose comparison needs no more than staging every line needs (the set of RUCs seen) is compared
        // in memory whatever the heap.
        assertThat(RegistryLines.heapNeeded(5_000_000)).isLessThan(RucSet.BYTES);
        assertThat(RegistryLines.fits(5_000_000, 64L << 20)).isTrue();
    }

    @Test
    void the_parts_of_a_read_are_adjoining_page_ranges_open_at_both_ends() {
        assertThat(RegistryLines.pages(0, 1, 100)).isEqualTo("true");
        assertThat(RegistryLines.pages(0, 2, 100)).isEqualTo("ctid < '(50,0)'");
        assertThat(RegistryLines.pages(1, 2, 100)).isEqualTo("ctid >= '(50,0)'");
        assertThat(List.of(RegistryLines.pages(0, 3, 100), RegistryLines.pages(1, 3, 100),
                RegistryLines.pages(2, 3, 100))).containsExactly("ctid < '(33,0)'",
                "ctid >= '(33,0)' and ctid < '(66,0)'", "ctid >= '(66,0)'");
    }
}
