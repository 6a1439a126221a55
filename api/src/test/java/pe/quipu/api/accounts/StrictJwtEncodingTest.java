package pe.quipu.api.accounts;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.testing.QuipuExtension;

import java.util.Base64;

import static org.assertj.core.api.Assertions.assertThat;
import static pe.quipu.api.testing.ProblemAssert.assertProblem;

/**
 * An access token is accepted only as Quipu wrote it: base64url without padding (RFC 7515), one spelling per
 * token. Each variant below decodes to the very bytes of a valid token's signature, so nimbus alone accepts it.
 */
class StrictJwtEncodingTest {

    private static final String ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    @Test
    void the_token_as_issued_is_accepted() {
        assertThat(quipu.get("/v1/me", quipu.accounts.newSession().accessToken()).statusCode()).isEqualTo(200);
    }

    @Test
    void a_padded_signature_is_401() {
        String token = quipu.accounts.newSession().accessToken();
        assertRejected(token + "==");
        assertRejected(token + "=");
    }

    @Test
    void a_signature_in_the_standard_base64_alphabet_is_401() {
        // A signature of 64 bytes has 86 characters: almost always one '-' or '_'; a few sessions make sure.
        String token = quipu.accounts.newSession().accessToken();
        for (int i = 0; i < 20 && !signature(token).matches(".*[-_].*"); i++) {
            token = quipu.accounts.newSession().accessToken();
        }
        assertThat(signature(token)).containsPattern("[-_]");
        String standard = token.substring(0, token.lastIndexOf('.') + 1)
                + signature(token).replace('-', '+').replace('_', '/');
        assertRejected(standard);
        // And as java.util.Base64's basic encoder writes it, padding included.
        assertRejected(token.substring(0, token.lastIndexOf('.') + 1)
                + Base64.getEncoder().encodeToString(Base64.getUrlDecoder().decode(signature(token))));
    }

    @Test
    void a_signature_with_other_unused_bits_in_its_last_character_is_401() {
        String token = quipu.accounts.newSession().accessToken();
        // 64 bytes in 86 characters: the last character carries 2 bits of data and 4 unused ones.
        char last = token.charAt(token.length() - 1);
        char sameBytes = ALPHABET.charAt(ALPHABET.indexOf(last) ^ 1);
        String variant = token.substring(0, token.length() - 1) + sameBytes;
        assertThat(Base64.getUrlDecoder().decode(signature(variant)))
                .isEqualTo(Base64.getUrlDecoder().decode(signature(token)));
        assertRejected(variant);
    }

    @Test
    void characters_outside_the_alphabet_inside_a_segment_are_401() {
        String token = quipu.accounts.newSession().accessToken();
        int middle = token.lastIndexOf('.') + 10;
        assertRejected(token.substring(0, middle) + "!" + token.substring(middle));
        assertRejected(token.substring(0, middle) + "%20" + token.substring(middle));
        assertRejected(token.substring(0, middle) + "\t" + token.substring(middle));
    }

    @Test
    void anything_but_three_segments_is_401() {
        String token = quipu.accounts.newSession().accessToken();
        assertRejected(token + ".");
        assertRejected(token + "." + signature(token));
    }

    private static String signature(String token) {
        return token.substring(token.lastIndexOf('.') + 1);
    }

    private static void assertRejected(String token) {
        assertProblem(quipu.get("/v1/me", token), 401, "unauthorized");
    }
}
