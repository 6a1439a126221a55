package pe.quipu.core.ruc;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PadronLineTest {

    /** The sample's lines as published: ISO-8859-1, each still ending in CR (split on LF only). */
    private static List<String> sampleLines() throws IOException {
        try (InputStream in = PadronSample.open()) {
            String text = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
            return Arrays.stream(text.split("\n")).filter(l -> !l.isEmpty()).toList();
        }
    }

    private static PadronRecord line(String ruc) throws IOException {
        String line = sampleLines().stream().filter(l -> l.startsWith(ruc + "|")).findFirst().orElseThrow();
        return PadronLine.parse(line);
    }

    @Test
    void every_sample_line_parses_with_a_valid_ruc() throws IOException {
        List<String> lines = sampleLines();
        assertThat(lines).hasSize(62);
        assertThat(lines.getFirst()).endsWith("\r");
        assertThat(PadronLine.isHeader(lines.getFirst())).isTrue();

        List<PadronRecord> records = lines.stream().skip(1).map(PadronLine::parse).toList();

        assertThat(records).hasSize(61);
        assertThat(records).allSatisfy(r -> {
            assertThat(Ruc.parse(r.ruc().value())).isEqualTo(r.ruc());
            assertThat(r.razonSocial()).isNotBlank().doesNotStartWith(" ").doesNotEndWith(" ");
            assertThat(r.estado()).isNotNull();
            assertThat(r.condicion()).isNotNull();
            assertThat(r.ubigeo()).matches("\\d{6}");
        });
        assertThat(records.stream().map(r -> r.ruc().value()).distinct()).hasSize(61);
        assertThat(lines.stream().skip(1).noneMatch(PadronLine::isHeader)).isTrue();
    }

    @Test
    void the_header_is_not_a_record() throws IOException {
        assertThatThrownBy(() -> PadronLine.parse(sampleLines().getFirst()))
                .isInstanceOf(MalformedPadronLineException.class)
                .hasMessageContaining("invalid RUC");
    }

    @Test
    void reads_every_column_of_a_company() throws IOException {
        PadronRecord r = line("20100227461");

        assertThat(r.ruc()).isEqualTo(Ruc.parse("20100227461"));
        assertThat(r.razonSocial()).isEqualTo("TRANSPORTES CRUZ DEL SUR S.A.C.");
        assertThat(r.estado()).isEqualTo("ACTIVO");
        assertThat(r.condicion()).isEqualTo("HABIDO");
        assertThat(r.ubigeo()).isEqualTo("150137");
        // CÓDIGO DE ZONA is published as "----": empty like "-".
        assertThat(r.address()).isEqualTo(new Address("AV.", "FRANCISCO BOLOGNESI", null, "ZONA INDUSTRIAL", "495",
                null, null, null, null, null));
        assertThat(r.direccion()).isEqualTo("AV. FRANCISCO BOLOGNESI NRO. 495 ZONA INDUSTRIAL");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = ';', value = {
            // ---- in CÓDIGO DE ZONA
            "20100227461;AV. FRANCISCO BOLOGNESI NRO. 495 ZONA INDUSTRIAL",
            // no street: manzana and lote, then the zone
            "20600662458;MZA. F14 LOTE. 10 URB. LAS DELICIAS DE VILLA",
            // asentamiento humano, manzana W lote 3
            "10452159428;MZA. W LOTE. 3 A.H. VIRGEN DE FATIMA",
            // INTERIOR
            "20272209325;AV. JOSE PARDO NRO. 601 INT. 1603",
            "20100106753;CAL. AUGUSSTO ANGULO NRO. 130 INT. 255 URB. SAN ANTONIO",
            // DEPARTAMENTO (the flat)
            "20100193117;CAL. MONTERREY NRO. 355 DPTO. 501 URB. CHACARILLA DEL ESTANQUE",
            "20516020301;AV. REPUBLICA DE COLOMBIA NRO. 791 DPTO. 503 RES. RESIDENCIAL",
            // ---- in CÓDIGO DE ZONA, a zone name that looks like a kilometre
            "20100182344;AV. LOS ROSALES NRO. 280 KM 4.8000 CARR CENTR",
            // ISO-8859-1 letters decoded
            "20330791412;CAL. CÉSAR LÓPEZ ROJAS NRO. 201 URB. MARANGA SÉPTIMA ETAPA",
            // a number with a dot as published
            "20259328463;AV. ALFREDO MENDIOLA NRO. 21.5",
    })
    void composes_the_direccion_of_real_lines(String ruc, String direccion) throws IOException {
        assertThat(line(ruc).direccion()).isEqualTo(direccion);
    }

    @Test
    void manzana_and_lote_are_read_from_their_own_columns() throws IOException {
        Address a = line("20600662458").address();
        assertThat(a).isEqualTo(new Address(null, null, "URB.", "LAS DELICIAS DE VILLA", null, null, "10", null,
                "F14", null));
    }

    @Test
    void keeps_inner_runs_of_spaces_as_published() throws IOException {
        PadronRecord r = line("20101783805");
        assertThat(r.razonSocial()).isEqualTo("SONIDO Y VISION  SA");
        assertThat(r.condicion()).isEqualTo("NO HALLADO SE MUDO D");
    }

    @Test
    void keeps_quotes_and_accents_in_names() throws IOException {
        assertThat(line("20100035040").razonSocial()).isEqualTo("P Y A D'ONOFRIO S A");
        assertThat(line("20125857567").address().tipoZona()).isEqualTo("LA AREQUIPEÑA");
    }

    @Test
    void an_address_of_hyphens_only_is_empty_and_ubigeo_hyphen_is_null() {
        PadronRecord r = PadronLine.parse("10452159428|GARCIA CHANCO CARLOS AUGUSTO|ACTIVO|HABIDO|-|----|-|----|-|-|-|-|-|-|-|\r\n");
        assertThat(r.ubigeo()).isNull();
        assertThat(r.address()).isEqualTo(Address.EMPTY);
        assertThat(r.direccion()).isNull();
    }

    @Test
    void trims_values_and_treats_blank_as_empty() {
        PadronRecord r = PadronLine.parse(
                "20100227461|  TRANSPORTES  CRUZ |ACTIVO |  |150137| AV. |  |  -  |x|495||-|-|-|-|\n");
        assertThat(r.razonSocial()).isEqualTo("TRANSPORTES  CRUZ");
        assertThat(r.estado()).isEqualTo("ACTIVO");
        assertThat(r.condicion()).isNull();
        assertThat(r.address()).isEqualTo(new Address("AV.", null, null, "x", "495", null, null, null, null, null));
    }

    @Test
    void accepts_lf_crlf_and_no_line_ending() {
        String line = "20100227461|TRANSPORTES CRUZ DEL SUR S.A.C.|ACTIVO|HABIDO|150137|AV.|FRANCISCO BOLOGNESI|----|ZONA INDUSTRIAL|495|-|-|-|-|-|";
        PadronRecord expected = PadronLine.parse(line);
        assertThat(PadronLine.parse(line + "\n")).isEqualTo(expected);
        assertThat(PadronLine.parse(line + "\r\n")).isEqualTo(expected);
        assertThat(PadronLine.parse(line + "\r")).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{1}")
    @CsvSource(delimiter = ';', value = {
            "'';0 fields instead of 15",
            "20100227461|NAME|ACTIVO|HABIDO|150137|AV.|X|-|-|1|-|-|-|-|;14 fields instead of 15",
            "20100227461|NAME|ACTIVO|HABIDO|150137|AV.|X|-|-|1|-|-|-|-|-|-|;more than 15 fields",
            "20100227461|NAME|ACTIVO|HABIDO|150137|AV.|X|-|-|1|-|-|-|-|-;not closed by '|'",
            "20100227462|NAME|ACTIVO|HABIDO|150137|AV.|X|-|-|1|-|-|-|-|-|;invalid RUC: wrong check digit",
            "2010022746|NAME|ACTIVO|HABIDO|150137|AV.|X|-|-|1|-|-|-|-|-|;invalid RUC: a RUC is exactly 11 digits",
            "-|NAME|ACTIVO|HABIDO|150137|AV.|X|-|-|1|-|-|-|-|-|;invalid RUC",
            "20100227461|-|ACTIVO|HABIDO|150137|AV.|X|-|-|1|-|-|-|-|-|;empty NOMBRE O RAZÓN SOCIAL",
            "20100227461|NAME|ACTIVO|HABIDO|15013|AV.|X|-|-|1|-|-|-|-|-|;UBIGEO is not 6 digits",
            "20100227461|NAME|ACTIVO|HABIDO|15O137|AV.|X|-|-|1|-|-|-|-|-|;UBIGEO is not 6 digits",
    })
    void rejects_malformed_lines_with_a_reason(String line, String reason) {
        assertThatThrownBy(() -> PadronLine.parse(line))
                .isInstanceOf(MalformedPadronLineException.class)
                .hasMessageContaining(reason);
    }
}
