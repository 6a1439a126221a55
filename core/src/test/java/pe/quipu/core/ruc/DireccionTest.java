package pe.quipu.core.ruc;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class DireccionTest {

    @Test
    void orders_every_part_as_the_contract_says() {
        Address all = new Address("AV.", "LOS PINOS", "URB.", "EL SOL", "12", "3B", "7", "501", "C", "4.5");
        assertThat(Direccion.compose(all))
                .isEqualTo("AV. LOS PINOS NRO. 12 INT. 3B DPTO. 501 MZA. C LOTE. 7 KM. 4.5 URB. EL SOL");
    }

    @Test
    void leaves_out_empty_parts_with_single_spaces() {
        Address some = new Address(null, "ARGENTINA", null, null, "3250", null, null, null, null, null);
        assertThat(Direccion.compose(some)).isEqualTo("ARGENTINA NRO. 3250");
        Address blanks = new Address(" ", "ARGENTINA", "", null, null, null, null, null, null, " KM ");
        assertThat(Direccion.compose(blanks)).isEqualTo("ARGENTINA KM. KM");
    }

    @Test
    void all_empty_is_null() {
        assertThat(Direccion.compose(Address.EMPTY)).isNull();
        assertThat(Direccion.compose(new Address("", " ", null, null, null, null, null, null, null, null))).isNull();
    }
}
