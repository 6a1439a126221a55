package pe.quipu.core.accounts;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

/** The normal form that identifies an account, and the addresses a new account may not take, as a table. */
class EmailIdentityFormTest {

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
            "Ana@Quipu.PE                | ana@quipu.pe",
            "\u00c1NA@quipu.pe           | \u00e1na@quipu.pe",
            "a\u0301na@quipu.pe          | \u00e1na@quipu.pe",
            "\u00c1\uff2e\uff21@quipu.pe | \u00e1na@quipu.pe",
            "Stra\u00dfe@x.pe            | strasse@x.pe",
            "\u03a3\u03bf\u03c6\u03b9\u03b1@x.pe | \u03c3\u03bf\u03c6\u03b9\u03b1@x.pe",
            "ana@\u00f1and\u00fa.pe      | ana@xn--and-6ma2c.pe",
            "ana@XN--AND-6MA2C.PE        | ana@xn--and-6ma2c.pe",
            "'  ana@quipu.pe  '          | ana@quipu.pe",
            "a@b@quipu.pe                | a@b@quipu.pe"})
    void spellings_of_one_mailbox_have_one_form(String email, String form) {
        assertThat(EmailIdentity.of(email)).isEqualTo(form);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "\u0430na@quipu.pe             | MIXED_SCRIPTS",
            "ana@aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.pe | DOMAIN_NOT_IDN"})
    void look_alikes_and_broken_domains_are_refused(String email, EmailIdentity.Fault reason) {
        assertThat(EmailIdentity.fault(email)).isEqualTo(reason);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"ana@quipu.pe", "\u0430\u043d\u043d\u0430@quipu.pe",
            "\u3084\u307e\u3060\u5c71\u7530\u30bf\u30ed\u30a6@quipu.pe", "ana.2026+test@quipu.pe"})
    void one_script_or_a_script_mix_of_one_writing_system_is_welcome(String email) {
        assertThat(EmailIdentity.fault(email)).isNull();
    }
}
