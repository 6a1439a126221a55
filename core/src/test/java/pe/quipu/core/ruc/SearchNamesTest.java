package pe.quipu.core.ruc;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import pe.quipu.core.testing.TestDatabase;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/** The Java normalisation against the database's {@code quipu_search_name}, which it must equal on every name. */
class SearchNamesTest {

    private static final TestDatabase DATABASE = TestDatabase.get();
    private static SearchNames names;

    @BeforeAll
    static void read() {
        names = DATABASE.jdbi().withHandle(SearchNames::read);
    }

    @Test
    void everyLatin1CharacterAloneAndBetweenLettersAndSeparators() {
        List<String> inputs = new ArrayList<>();
        for (char c = 1; c < 256; c++) {
            String s = String.valueOf(c);
            inputs.addAll(List.of(s, "x" + s, s + "x", "x" + s + "y", "x " + s + " y", ".." + s + s + "--", "'" + s));
        }
        assertSameAsDatabase(inputs);
    }

    @Test
    void namesAsSunatWritesThem() {
        assertSameAsDatabase(List.of("ÑAÑEZ QUISPE JUAN", "Ñañez", "INVERSIONES ANDINAS S.A.C.", "D'ONOFRIO S.A.",
                "  CONSTRUCTORA  & SERVICIOS GENERALES E.I.R.L. ", "ÆGIR ßTRASSE ÐÞØ ½ ¼ ¾ © ® « » ¹ ² ³ µ × ÷",
                "CAFÉ - BODEGA \"EL SOL\" (ÁNCASH)", "...", "", " ", "A.B.C", "ORTIZ-BÁEZ/LÓPEZ", "N°5 Nº 5 n.º 5",
                "¡HOLA! ¿QUÉ? ¨´`^~", "\t\u00A0\u00ADTAB\u00A0NBSP\u00ADSHY"));
    }

    @Test
    void randomNamesOfLatin1Characters() {
        Random random = new Random(20261126);
        String common = "ABCÑÁÉÍÓÚÜ .'-&/,\"()Ææßº°";
        List<String> inputs = new ArrayList<>();
        for (int i = 0; i < 5_000; i++) {
            StringBuilder s = new StringBuilder();
            int n = random.nextInt(30);
            for (int j = 0; j < n; j++) {
                s.append(random.nextBoolean() ? common.charAt(random.nextInt(common.length()))
                        : (char) (1 + random.nextInt(255)));
            }
            inputs.add(s.toString());
        }
        assertSameAsDatabase(inputs);
    }

    @Test
    void charactersOutsideLatin1AreLeftToTheDatabase() {
        assertThat(names.of("ŁÓDŹ")).isNull();
        assertThat(names.of("A\u0000B")).isNull();
        assertThat(names.of("Ñañez S.A.C.")).isEqualTo("nanez sac");
    }

    private static void assertSameAsDatabase(List<String> inputs) {
        List<String> expected = DATABASE.jdbi().withHandle(h -> h.createQuery(
                        "select quipu_search_name(n) from unnest(cast(:names as text[])) with ordinality as t(n, i) order by i")
                .bind("names", inputs.toArray(String[]::new))
                .mapTo(String.class).list());
        List<String> actual = inputs.stream().map(names::of).toList();
        for (int i = 0; i < inputs.size(); i++) {
            assertThat(actual.get(i)).as("quipu_search_name of [%s]", inputs.get(i)).isEqualTo(expected.get(i));
        }
    }
}
