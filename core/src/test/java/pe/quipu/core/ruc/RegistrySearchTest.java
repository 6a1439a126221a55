package pe.quipu.core.ruc;

import org.junit.jupiter.api.Test;
import pe.quipu.core.testing.TestDatabase;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The trigram index's halves: every RUC in exactly one, and a search's candidates from both. */
class RegistrySearchTest {

    private static final TestDatabase DATABASE = TestDatabase.get();

    @Test
    void every_ruc_is_in_exactly_one_half_and_the_halves_split_by_the_tenth_digit() {
        List<String> rows = DATABASE.jdbi().withHandle(h -> h.createQuery(
                        "select d::text || ' ' || (" + RegistrySearch.HALVES.get(0) + ") || ' ' || ("
                                + RegistrySearch.HALVES.get(1) + ") from (select d, cast('201002274' || d || '1' as"
                                + " char(11)) as ruc from generate_series(0, 9) d) r order by d")
                .mapTo(String.class).list());
        assertThat(rows).containsExactly("0 true false", "1 true false", "2 true false", "3 true false",
                "4 true false", "5 false true", "6 false true", "7 false true", "8 false true", "9 false true");
    }

    @Test
    void candidates_come_from_both_halves_first_half_first_and_stop_at_the_limit() {
        // Tenth digits 9 and 6 (second half), 0 and 1 (first half).
        String registry = "(select cast(x as char(11)) as ruc from unnest(array['20100227491', '20100227461',"
                + " '20100227401', '20100227411']) x) ruc_registry";
        List<String> three = DATABASE.jdbi().withHandle(h -> h.createQuery(
                RegistrySearch.candidates("ruc", "ruc like '2%'", 3).replace("ruc_registry", registry))
                .mapTo(String.class).list());
        assertThat(three).hasSize(3).startsWith("20100227401", "20100227411");
        List<String> all = DATABASE.jdbi().withHandle(h -> h.createQuery(
                RegistrySearch.candidates("ruc", "true", 10).replace("ruc_registry", registry))
                .mapTo(String.class).list());
        assertThat(all).containsExactlyInAnyOrder("20100227491", "20100227461", "20100227401", "20100227411");
    }
}
