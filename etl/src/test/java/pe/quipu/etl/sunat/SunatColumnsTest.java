package pe.quipu.etl.sunat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SunatColumnsTest {

    @ParameterizedTest
    @CsvSource(delimiter = ';', value = {
            "A partir del; APARTIRDEL",
            "A PARTIR DEL; APARTIRDEL",
            " a  partir\tdel ; APARTIRDEL",
            "Resolución; RESOLUCION",
            "NOMBRE DE VÍA; NOMBREDEVIA",
            "KILÓMETRO; KILOMETRO",
            "Razón Social; RAZONSOCIAL"})
    void titles_compare_without_case_accents_or_spaces(String title, String normal) {
        assertThat(SunatColumns.normalize(title)).isEqualTo(normal);
    }

    @Test
    void columns_are_found_by_name_in_any_order_behind_a_bom_and_extra_columns_are_ignored() {
        SunatColumns utf8Bom = SunatColumns.of("\u00EF\u00BB\u00BFRESOLUCION|Extra|ruc|A Partir Del|",
                SunatFile.LIST_COLUMNS);
        List<String> fields = SunatColumns.split("R.S. 037-2002/SUNAT|x|20100227461|01/06/2002|");
        assertThat(utf8Bom.field(fields, 0)).isEqualTo("20100227461");
        assertThat(utf8Bom.field(fields, 1)).isEqualTo("01/06/2002");
        assertThat(utf8Bom.field(fields, 2)).isEqualTo("R.S. 037-2002/SUNAT");
        assertThat(utf8Bom.width()).isEqualTo(4);

        SunatColumns charBom = SunatColumns.of("\uFEFFRuc|Razon Social|A partir del|Resolucion|",
                SunatFile.LIST_COLUMNS);
        assertThat(charBom.field(SunatColumns.split("20100227461|X|01/06/2002| |"), 2)).isNull();
        // A line cut short has nothing in the columns it lacks.
        assertThat(charBom.field(SunatColumns.split("20100227461|X|"), 1)).isNull();
    }

    @Test
    void a_missing_column_refuses_the_file_naming_it() {
        assertThatThrownBy(() -> SunatColumns.of("Ruc|Razon Social|Resolucion|", SunatFile.LIST_COLUMNS))
                .isInstanceOf(SunatColumns.MissingColumnException.class)
                .hasMessageStartingWith("the file has no column \"A partir del\" (its header: Ruc|Razon Social|Resolucion|)");
    }

    @ParameterizedTest
    @CsvSource(delimiter = ';', value = {
            "a|b|; 2",
            "a|b; 2",
            "a||c|; 3",
            "|; 1",
            "a|b|\r; 2"})
    void a_line_splits_at_each_bar_and_the_closing_bar_adds_no_field(String line, int fields) {
        assertThat(SunatColumns.split(line)).hasSize(fields);
    }
}
