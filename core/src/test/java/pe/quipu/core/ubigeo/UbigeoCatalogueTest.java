package pe.quipu.core.ubigeo;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class UbigeoCatalogueTest {

    private static final List<Ubigeo> BUNDLED = UbigeoCsv.bundled();
    private final UbigeoCatalogue catalogue = UbigeoCatalogue.of(BUNDLED);

    @Test
    void find_by_code() {
        assertThat(catalogue.size()).isEqualTo(1_891);
        assertThat(catalogue.find("150101")).contains(new Ubigeo("150101", "Lima", "Lima", "Lima"));
        assertThat(catalogue.find("999999")).isEmpty();
        assertThat(catalogue.find("000000")).isEmpty();
    }

    @Test
    void items_are_ordered_by_code_whatever_the_input_order() {
        List<Ubigeo> reversed = new ArrayList<>(BUNDLED).reversed();
        UbigeoCatalogue fromReversed = UbigeoCatalogue.of(reversed);

        List<String> codes = fromReversed.all().stream().map(Ubigeo::code).toList();
        assertThat(codes).isSorted().hasSize(1_891);
        assertThat(fromReversed.search(UbigeoQuery.all(3)).items()).extracting(Ubigeo::code)
                .containsExactly("010101", "010102", "010103");
    }

    @Test
    void a_repeated_code_is_refused() {
        Ubigeo lima = new Ubigeo("150101", "Lima", "Lima", "Lima");
        assertThatThrownBy(() -> UbigeoCatalogue.of(List.of(lima, lima)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("150101");
    }

    @Test
    void q_ignores_accents_and_case() {
        List<Ubigeo> ancash = everything(UbigeoQuery.all(200).withQ("ancash"));
        assertThat(ancash).isNotEmpty().allMatch(u -> u.departamento().equals("Áncash"));
        assertThat(ancash).hasSize((int) BUNDLED.stream().filter(u -> u.departamento().equals("Áncash")).count());

        assertThat(everything(UbigeoQuery.all(200).withQ("LIMA")))
                .isEqualTo(everything(UbigeoQuery.all(200).withQ("lima")))
                .contains(new Ubigeo("150101", "Lima", "Lima", "Lima"));

        assertThat(everything(UbigeoQuery.all(200).withQ("Huánuco")))
                .isNotEmpty()
                .isEqualTo(everything(UbigeoQuery.all(200).withQ("huanuco")))
                .isEqualTo(everything(UbigeoQuery.all(200).withQ("HUANUCO")));
    }

    @Test
    void q_matches_a_substring_of_district_province_or_department() {
        List<Ubigeo> found = everything(UbigeoQuery.all(200).withQ("chacha"));
        assertThat(found).isEqualTo(BUNDLED.stream().filter(containsIgnoringAccents("chacha")).toList());
        // Matches through the province name although the district is named otherwise.
        assertThat(found).contains(new Ubigeo("010102", "Amazonas", "Chachapoyas", "Asunción"));
    }

    @Test
    void filters_combine() {
        List<Ubigeo> lima = everything(UbigeoQuery.all(200).withDepartamento("15"));
        assertThat(lima).isNotEmpty().allMatch(u -> u.code().startsWith("15"));
        assertThat(lima).hasSize((int) BUNDLED.stream().filter(u -> u.departamentoCode().equals("15")).count());

        List<Ubigeo> limaProvince = everything(UbigeoQuery.all(200).withDepartamento("15").withProvincia("1501"));
        assertThat(limaProvince).hasSize(43).allMatch(u -> u.provinciaCode().equals("1501"));

        List<Ubigeo> sanInLima = everything(UbigeoQuery.all(200).withProvincia("1501").withQ("san"));
        assertThat(sanInLima).isNotEmpty()
                .isEqualTo(BUNDLED.stream().filter(u -> u.provinciaCode().equals("1501"))
                        .filter(containsIgnoringAccents("san")).toList());
    }

    @Test
    void contradicting_or_unmatched_filters_give_an_empty_last_page() {
        assertThat(catalogue.search(UbigeoQuery.all(50).withDepartamento("15").withProvincia("0101")))
                .isEqualTo(UbigeoPage.EMPTY);
        assertThat(catalogue.search(UbigeoQuery.all(50).withQ("zzzz"))).isEqualTo(UbigeoPage.EMPTY);
        assertThat(catalogue.search(UbigeoQuery.all(50).withDepartamento("99"))).isEqualTo(UbigeoPage.EMPTY);
        assertThat(catalogue.search(UbigeoQuery.all(50).withCursor("999999"))).isEqualTo(UbigeoPage.EMPTY);
    }

    @Test
    void paging_visits_every_item_once_and_ends_with_a_null_cursor() {
        for (int limit : new int[] {1, 7, 50, 200, 1_891, 5_000}) {
            assertThat(everything(UbigeoQuery.all(limit))).as("limit %d", limit).isEqualTo(catalogue.all());
        }
        assertThat(everything(UbigeoQuery.all(13).withQ("san")))
                .isEqualTo(BUNDLED.stream().filter(containsIgnoringAccents("san")).toList());
    }

    @Test
    void next_cursor_is_null_exactly_when_nothing_follows() {
        UbigeoPage first = catalogue.search(UbigeoQuery.all(50));
        assertThat(first.items()).hasSize(50);
        assertThat(first.nextCursor()).isEqualTo(first.items().getLast().code());

        // A page that ends exactly on the last match says so: no empty page to fetch afterwards.
        UbigeoPage exact = catalogue.search(UbigeoQuery.all(43).withProvincia("1501"));
        assertThat(exact.items()).hasSize(43);
        assertThat(exact.nextCursor()).isNull();

        UbigeoPage whole = catalogue.search(UbigeoQuery.all(1_891));
        assertThat(whole.items()).hasSize(1_891);
        assertThat(whole.nextCursor()).isNull();

        UbigeoPage last = catalogue.search(UbigeoQuery.all(5).withCursor(BUNDLED.getLast().code()));
        assertThat(last).isEqualTo(UbigeoPage.EMPTY);
    }

    @Test
    void cursor_need_not_be_a_known_code() {
        UbigeoPage page = catalogue.search(UbigeoQuery.all(1).withCursor("150100"));
        assertThat(page.items()).extracting(Ubigeo::code).containsExactly("150101");
    }

    @Test
    void normalise_strips_accents_and_case() {
        assertThat(UbigeoCatalogue.normalise("Áncash")).isEqualTo("ancash");
        assertThat(UbigeoCatalogue.normalise("HUÁNUCO")).isEqualTo("huanuco");
        assertThat(UbigeoCatalogue.normalise("Cañaris")).isEqualTo("canaris");
        // Already decomposed input (NFD from some clients) ends the same.
        assertThat(UbigeoCatalogue.normalise("A\u0301ncash")).isEqualTo("ancash");
    }

    private List<Ubigeo> everything(UbigeoQuery query) {
        List<Ubigeo> all = new ArrayList<>();
        UbigeoQuery next = query;
        while (true) {
            UbigeoPage page = catalogue.search(next);
            assertThat(page.items().size()).isLessThanOrEqualTo(query.limit());
            all.addAll(page.items());
            if (page.nextCursor() == null) {
                return all;
            }
            assertThat(page.items()).hasSize(query.limit());
            assertThat(page.nextCursor()).isEqualTo(page.items().getLast().code());
            next = next.withCursor(page.nextCursor());
        }
    }

    private static Predicate<Ubigeo> containsIgnoringAccents(String q) {
        return u -> UbigeoCatalogue.normalise(u.distrito() + "|" + u.provincia() + "|" + u.departamento()).contains(q);
    }
}
