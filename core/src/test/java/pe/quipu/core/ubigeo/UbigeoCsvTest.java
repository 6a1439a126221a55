package pe.quipu.core.ubigeo;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class UbigeoCsvTest {

    private static final String HEADER =
            "departamento;provincia;distrito;ubigeo;capital_legal;categoría;altitud;población;latitud;longitud\n";

    @Test
    void bundled_catalogue_has_every_district_province_and_department() {
        List<Ubigeo> ubigeos = UbigeoCsv.bundled();

        assertThat(ubigeos).hasSize(1_891);
        assertThat(ubigeos.stream().map(Ubigeo::code).distinct()).hasSize(1_891);
        assertThat(ubigeos.stream().map(Ubigeo::provinciaCode).distinct()).hasSize(196);
        assertThat(ubigeos.stream().map(Ubigeo::departamentoCode).distinct()).hasSize(25);
    }

    @Test
    void bundled_names_are_exactly_as_inei_writes_them() {
        List<Ubigeo> ubigeos = UbigeoCsv.bundled();

        assertThat(ubigeos.getFirst()).isEqualTo(new Ubigeo("010101", "Amazonas", "Chachapoyas", "Chachapoyas"));
        assertThat(ubigeos).filteredOn(u -> u.departamentoCode().equals("02"))
                .extracting(Ubigeo::departamento).containsOnly("Áncash");
        assertThat(ubigeos).contains(new Ubigeo("150101", "Lima", "Lima", "Lima"));
        // The Ninabamba correction of the bundled copy (SOURCE.md).
        assertThat(ubigeos).contains(new Ubigeo("061306", "Cajamarca", "Santa Cruz", "Ninabamba"));
    }

    @Test
    void bom_is_optional_and_extra_columns_are_ignored() throws IOException {
        String body = "departamento;provincia;distrito;ubigeo\nAmazonas;Chachapoyas;Asunción;010102\n";

        assertThat(parse(body)).containsExactly(new Ubigeo("010102", "Amazonas", "Chachapoyas", "Asunción"));
        assertThat(parse("\uFEFF" + HEADER + "Amazonas;Chachapoyas;Asunción;010102;Asunción;Pueblo;1;2;3;4\n"))
                .containsExactly(new Ubigeo("010102", "Amazonas", "Chachapoyas", "Asunción"));
    }

    @Test
    void a_province_code_with_two_names_is_rejected() {
        String body = HEADER
                + "Cajamarca;Santa Cruz;Santa Cruz;061301;x;x;1;1;1;1\n"
                + "Cajamarca;Ninabamba;Ninabamba;061306;x;x;1;1;1;1\n";

        assertThatThrownBy(() -> parse(body)).isInstanceOf(InvalidUbigeoFileException.class)
                .hasMessageContaining("0613").hasMessageContaining("Santa Cruz").hasMessageContaining("Ninabamba");
    }

    @Test
    void a_department_code_with_two_names_is_rejected() {
        String body = HEADER
                + "Áncash;Huaraz;Huaraz;020101;x;x;1;1;1;1\n"
                + "Ancash;Aija;Aija;020201;x;x;1;1;1;1\n";

        assertThatThrownBy(() -> parse(body)).isInstanceOf(InvalidUbigeoFileException.class)
                .hasMessageContaining("02 ").hasMessageContaining("Áncash").hasMessageContaining("Ancash");
    }

    @Test
    void a_repeated_code_is_rejected() {
        String body = HEADER
                + "Lima;Lima;Lima;150101;x;x;1;1;1;1\n"
                + "Lima;Lima;Lima;150101;x;x;1;1;1;1\n";

        assertThatThrownBy(() -> parse(body)).isInstanceOf(InvalidUbigeoFileException.class)
                .hasMessageContaining("150101").hasMessageContaining("twice");
    }

    @Test
    void codes_must_be_six_digits() {
        for (String code : List.of("15010", "1501011", "15O101", "١٥٠١٠١", "")) {
            String body = HEADER + "Lima;Lima;Lima;" + code + ";x;x;1;1;1;1\n";
            assertThatThrownBy(() -> parse(body)).as(code).isInstanceOf(InvalidUbigeoFileException.class);
        }
    }

    @Test
    void missing_columns_blank_names_empty_files_and_latin1_are_rejected() {
        assertThatThrownBy(() -> parse("departamento;provincia;ubigeo\nLima;Lima;150101\n"))
                .isInstanceOf(InvalidUbigeoFileException.class).hasMessageContaining("distrito");
        assertThatThrownBy(() -> parse(HEADER + "Lima; ;Lima;150101;x;x;1;1;1;1\n"))
                .isInstanceOf(InvalidUbigeoFileException.class).hasMessageContaining("provincia");
        assertThatThrownBy(() -> parse(HEADER)).isInstanceOf(InvalidUbigeoFileException.class);
        byte[] latin1 = (HEADER + "Áncash;Huaraz;Huaraz;020101;x;x;1;1;1;1\n").getBytes(StandardCharsets.ISO_8859_1);
        assertThatThrownBy(() -> UbigeoCsv.read(new ByteArrayInputStream(latin1)))
                .isInstanceOf(InvalidUbigeoFileException.class).hasMessageContaining("UTF-8");
    }

    private static List<Ubigeo> parse(String body) throws IOException {
        return UbigeoCsv.read(new ByteArrayInputStream(body.getBytes(StandardCharsets.UTF_8)));
    }
}
