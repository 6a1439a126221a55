package pe.quipu.etl.generate;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import pe.quipu.core.ruc.Direccion;
import pe.quipu.core.ruc.PadronLine;
import pe.quipu.core.ruc.PadronRecord;
import pe.quipu.etl.generate.NextDayPadron.Kind;
import pe.quipu.etl.generate.NextDayPadron.Summary;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.zip.ZipInputStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/** The next day's padrón ({@code generate-padron --changes-from}), read back line by line against the earlier one. */
class NextDayPadronTest {

    private static final int ROWS = 20_000;
    private static Path dir;
    private static Path day1;

    @BeforeAll
    static void writeDayOne() throws IOException {
        dir = Files.createTempDirectory("quipu-next-day-");
        day1 = dir.resolve("day1.txt");
        PadronGenerator.write(day1, ROWS, 5);
    }

    @AfterAll
    static void cleanUp() throws IOException {
        try (var paths = Files.walk(dir)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    @Test
    void the_next_day_parses_as_a_padron_with_each_kind_of_change_in_its_share_and_every_other_line_as_it_was()
            throws IOException {
        Path day2 = dir.resolve("day2.txt");

        Summary summary = NextDayPadron.write(day1, day2, 0.05, 11);

        String before = Files.readString(day1, StandardCharsets.ISO_8859_1);
        String after = Files.readString(day2, StandardCharsets.ISO_8859_1);
        // SUNAT's line ends, CRLF, on every line.
        assertThat(after).endsWith("\r\n");
        assertThat(after.split("\n", -1)).allSatisfy(line -> assertThat(line.isEmpty() || line.endsWith("\r")).isTrue());
        List<String> oldLines = lines(before);
        List<String> newLines = lines(after);
        assertThat(newLines.getFirst()).isEqualTo(PadronGenerator.HEADER).isEqualTo(oldLines.getFirst());

        Map<String, String> old = byRuc(oldLines);
        Map<String, String> next = byRuc(newLines); // parses every line, and refuses a RUC met twice
        assertThat(next).hasSize(newLines.size() - 1);

        Map<Kind, Long> seen = new EnumMap<>(Kind.class);
        List<String> kept = new ArrayList<>();
        for (Map.Entry<String, String> line : old.entrySet()) {
            String now = next.get(line.getKey());
            if (now == null) {
                seen.merge(Kind.REMOVED, 1L, Long::sum);
            } else if (now.equals(line.getValue())) {
                kept.add(now);
            } else {
                seen.merge(kindOf(line.getValue(), now), 1L, Long::sum);
            }
        }
        for (String ruc : next.keySet()) {
            if (!old.containsKey(ruc)) {
                assertThat(ruc).matches("(10|20)\\d{9}");
                PadronRecord added = PadronLine.parse(next.get(ruc));
                assertThat(added.estado()).isEqualTo("ACTIVO");
                assertThat(added.condicion()).isEqualTo("HABIDO");
                seen.merge(Kind.ADDED, 1L, Long::sum);
            }
        }

        // 5 % of 20,000 records: 1,000 changes in the documented shares, the counts as the summary says.
        assertThat(summary.earlierRecords()).isEqualTo(ROWS);
        assertThat(summary.total()).isEqualTo(1_000);
        assertThat(seen).isEqualTo(summary.changes());
        for (Kind kind : Kind.values()) {
            assertThat((double) seen.get(kind)).as(kind.label()).isCloseTo(kind.share() * 1_000, within(1.0));
        }
        assertThat(summary.records()).isEqualTo(ROWS + seen.get(Kind.ADDED) - seen.get(Kind.REMOVED))
                .isEqualTo(newLines.size() - 1);
        // Every unchanged line byte for byte, in its order.
        assertThat((long) kept.size()).isEqualTo(ROWS - 1_000 + seen.get(Kind.ADDED));
        Set<String> unchanged = new HashSet<>(kept);
        assertThat(newLines.stream().filter(unchanged::contains).toList()).isEqualTo(kept);
        // The changes are spread over the file, not bunched at its start or end.
        long firstHalf = newLines.subList(1, newLines.size() / 2).stream().filter(l -> !unchanged.contains(l)).count();
        assertThat(firstHalf).isBetween(300L, 700L);
    }

    @Test
    void the_same_file_rate_and_seed_give_the_same_day_and_another_seed_another() throws IOException {
        Path zip = dir.resolve("day1.zip");
        PadronGenerator.write(zip, ROWS, 5);

        NextDayPadron.write(zip, dir.resolve("a.zip"), 0.01, 3);
        NextDayPadron.write(zip, dir.resolve("b.zip"), 0.01, 3);
        NextDayPadron.write(zip, dir.resolve("c.zip"), 0.01, 4);

        byte[] a = unzip(dir.resolve("a.zip"));
        assertThat(unzip(dir.resolve("b.zip"))).isEqualTo(a);
        assertThat(unzip(dir.resolve("c.zip"))).isNotEqualTo(a);
        // The zip's content is the bare file's: the kind of input and output does not change the day.
        NextDayPadron.write(day1, dir.resolve("a.txt"), 0.01, 3);
        assertThat(Files.readAllBytes(dir.resolve("a.txt"))).isEqualTo(a);
    }

    @Test
    void lf_line_ends_are_kept_and_a_line_that_is_not_a_padron_line_is_copied_unchanged() throws IOException {
        List<String> lines = lines(Files.readString(day1, StandardCharsets.ISO_8859_1)).subList(0, 2_001);
        List<String> withJunk = new ArrayList<>(lines);
        withJunk.add(1_000, "20100000001|NOT A RUC|ACTIVO|");
        Path lf = dir.resolve("lf.txt");
        Files.writeString(lf, String.join("\n", withJunk) + "\n", StandardCharsets.ISO_8859_1);

        Summary summary = NextDayPadron.write(lf, dir.resolve("lf-day2.txt"), 0.1, 1);

        String after = Files.readString(dir.resolve("lf-day2.txt"), StandardCharsets.ISO_8859_1);
        assertThat(after).doesNotContain("\r").endsWith("\n");
        assertThat(after).contains("\n20100000001|NOT A RUC|ACTIVO|\n");
        assertThat(summary.earlierRecords()).isEqualTo(2_000);
        assertThat(summary.total()).isEqualTo(200);
    }

    @Test
    void a_rate_of_zero_copies_the_file_and_a_rate_outside_zero_to_one_is_refused() throws IOException {
        NextDayPadron.write(day1, dir.resolve("same.txt"), 0, 9);
        assertThat(Files.readAllBytes(dir.resolve("same.txt"))).isEqualTo(Files.readAllBytes(day1));

        assertThatThrownBy(() -> NextDayPadron.write(day1, dir.resolve("x.txt"), 1.5, 9))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> NextDayPadron.write(day1, dir.resolve("x.txt"), -0.01, 9))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void the_changes_split_by_largest_remainders_into_counts_that_add_up() {
        assertThat(NextDayPadron.counts(1_000, 5_000)).isEqualTo(Map.of(Kind.ESTADO, 350L,
                Kind.CONDICION, 250L, Kind.ADDRESS, 150L, Kind.NAME, 50L, Kind.ADDED, 150L, Kind.REMOVED, 50L));
        // 7 × shares = 2.45, 1.75, 1.05, 0.35, 1.05, 0.35: floors 2, 1, 1, 0, 1, 0; the two largest remainders, 0.75
        // and 0.45, get the last two.
        assertThat(NextDayPadron.counts(7, 10)).isEqualTo(Map.of(Kind.ESTADO, 3L,
                Kind.CONDICION, 2L, Kind.ADDRESS, 1L, Kind.NAME, 0L, Kind.ADDED, 1L, Kind.REMOVED, 0L));
        assertThat(NextDayPadron.counts(10, 10).values().stream().mapToLong(Long::longValue).sum()).isEqualTo(10);
    }

    /** The one kind of change between two lines of a RUC, checking that nothing else moved. */
    private static Kind kindOf(String before, String after) {
        PadronRecord a = PadronLine.parse(before);
        PadronRecord b = PadronLine.parse(after);
        String[] x = before.split("\\|", -1);
        String[] y = after.split("\\|", -1);
        List<Integer> differing = new ArrayList<>();
        for (int i = 0; i < x.length; i++) {
            if (!x[i].equals(y[i])) {
                differing.add(i);
            }
        }
        boolean name = !a.razonSocial().equals(b.razonSocial());
        boolean estado = !Objects.equals(a.estado(), b.estado());
        boolean condicion = !Objects.equals(a.condicion(), b.condicion());
        boolean direccion = !Objects.equals(Direccion.compose(a.address()), Direccion.compose(b.address()));
        Kind kind;
        if (estado) {
            kind = Kind.ESTADO;
            assertThat(differing).containsExactly(2);
        } else if (condicion) {
            kind = Kind.CONDICION;
            assertThat(differing).containsExactly(3);
        } else if (name) {
            kind = Kind.NAME;
            assertThat(differing).containsExactly(1);
        } else {
            kind = Kind.ADDRESS;
            assertThat(direccion).as(before + " -> " + after).isTrue();
            assertThat(differing).allMatch(i -> i >= 4 && i <= 14);
        }
        assertThat(Arrays.asList(name, estado, condicion, direccion).stream().filter(d -> d).count())
                .as(before + " -> " + after).isEqualTo(1);
        return kind;
    }

    private static List<String> lines(String text) {
        return Arrays.asList(text.split("\r?\n"));
    }

    private static Map<String, String> byRuc(List<String> lines) {
        Map<String, String> byRuc = new LinkedHashMap<>();
        for (String line : lines.subList(1, lines.size())) {
            String ruc = PadronLine.parse(line).ruc().value();
            assertThat(byRuc.put(ruc, line)).as("RUC met twice: " + ruc).isNull();
        }
        return byRuc;
    }

    private static byte[] unzip(Path zip) throws IOException {
        try (ZipInputStream in = new ZipInputStream(Files.newInputStream(zip))) {
            assertThat(in.getNextEntry()).isNotNull();
            return ((InputStream) in).readAllBytes();
        }
    }
}
