package pe.quipu.api.accounts;

import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSSigner;
import com.nimbusds.jose.crypto.ECDSASigner;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.PlainJWT;
import com.nimbusds.jwt.SignedJWT;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.api.testing.TestAccounts;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static pe.quipu.api.testing.ProblemAssert.assertProblem;

/**
 * Access tokens Quipu did not issue, or no longer honours, get 401 {@code unauthorized} (contract §2, JWT bullet).
 * Forged tokens carry the claims of a real session, so that each is refused for the one fault it has; the first
 * test shows that the same claims, properly signed, are accepted.
 */
class AccessTokenRejectionTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    @Test
    void a_token_signed_with_quipu_s_key_and_the_right_claims_is_accepted() throws Exception {
        TestAccounts.Session session = quipu.accounts.newSession();
        assertThat(quipu.get("/v1/me", sign(claims(session).build(), quipuKey())).statusCode()).isEqualTo(200);
    }

    @Test
    void a_token_signed_by_another_ec_key_is_401() throws Exception {
        TestAccounts.Session session = quipu.accounts.newSession();
        // Even with Quipu's key id in the header.
        ECKey stranger = new ECKeyGenerator(Curve.P_256).keyID(quipuKey().getKeyID()).generate();
        assertRejected(sign(claims(session).build(), stranger));
    }

    @Test
    void a_token_carrying_its_own_key_in_the_header_is_401() throws Exception {
        TestAccounts.Session session = quipu.accounts.newSession();
        ECKey stranger = new ECKeyGenerator(Curve.P_256).generate();
        SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.ES256).jwk(stranger.toPublicJWK())
                .type(JOSEObjectType.JWT).build(), claims(session).build());
        jwt.sign(new ECDSASigner(stranger));
        assertRejected(jwt.serialize());
    }

    @Test
    void an_expired_token_is_401() {
        TestAccounts.Session session = quipu.accounts.newSession();
        quipu.clock.advance(Duration.ofMinutes(15).minusSeconds(1));
        assertThat(quipu.get("/v1/me", session.accessToken()).statusCode()).isEqualTo(200);
        quipu.clock.advance(Duration.ofSeconds(1));
        assertRejected(session.accessToken());
    }

    @Test
    void an_unsigned_token_alg_none_is_401() throws Exception {
        TestAccounts.Session session = quipu.accounts.newSession();
        String none = new PlainJWT(claims(session).build()).serialize();
        assertThat(none).endsWith(".");
        assertRejected(none);
        // The same with a signature part left in, and with "alg":"none" spelled in other cases.
        assertRejected(none + "c2lnbmF0dXJl");
        String payload = none.split("\\.")[1];
        for (String alg : new String[]{"None", "NONE", "nOnE"}) {
            String header = Base64.getUrlEncoder().withoutPadding()
                    .encodeToString(("{\"alg\":\"" + alg + "\",\"typ\":\"JWT\"}").getBytes(StandardCharsets.UTF_8));
            assertRejected(header + "." + payload + ".");
        }
    }

    @Test
    void an_hmac_token_is_401_whatever_its_secret() throws Exception {
        TestAccounts.Session session = quipu.accounts.newSession();
        JWTClaimsSet claims = claims(session).build();
        byte[] random = new byte[32];
        new SecureRandom().nextBytes(random);
        assertRejected(hmac(JWSAlgorithm.HS256, random, claims));
        assertRejected(hmac(JWSAlgorithm.HS512, new byte[64], claims));
        // Key confusion: HMAC keyed with the public key, in each form a verifier might hold it.
        ECKey published = ECKey.parse(JWKSet.parse(quipu.get("/.well-known/jwks.json", null).body())
                .getKeys().getFirst().toJSONObject());
        byte[] der = published.toECPublicKey().getEncoded();
        String pem = "-----BEGIN PUBLIC KEY-----\n" + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                .encodeToString(der) + "\n-----END PUBLIC KEY-----\n";
        assertRejected(hmac(JWSAlgorithm.HS256, der, claims));
        assertRejected(hmac(JWSAlgorithm.HS256, pem.getBytes(StandardCharsets.US_ASCII), claims));
        assertRejected(hmac(JWSAlgorithm.HS256, published.toJSONString().getBytes(StandardCharsets.UTF_8), claims));
    }

    @Test
    void a_token_with_another_issuer_is_401() throws Exception {
        TestAccounts.Session session = quipu.accounts.newSession();
        assertRejected(sign(claims(session).issuer("someone-else").build(), quipuKey()));
        assertRejected(sign(claims(session).issuer(null).build(), quipuKey()));
    }

    @Test
    void a_token_missing_a_claim_or_with_a_malformed_one_is_401() throws Exception {
        TestAccounts.Session session = quipu.accounts.newSession();
        ECKey key = quipuKey();
        assertRejected(sign(claims(session).claim("sid", null).build(), key));
        assertRejected(sign(claims(session).claim("sid", "not-a-session-id").build(), key));
        assertRejected(sign(claims(session).claim("sid", 42).build(), key));
        assertRejected(sign(claims(session).subject(null).build(), key));
        assertRejected(sign(claims(session).subject("not-an-account-id").build(), key));
        assertRejected(sign(claims(session).jwtID(null).build(), key));
        assertRejected(sign(claims(session).expirationTime(null).build(), key));
        assertRejected(sign(claims(session).issueTime(null).build(), key));
    }

    @Test
    void garbage_is_401() {
        for (String garbage : new String[]{"garbage", "a.b.c", "a.b", "....", "eyJhbGciOiJFUzI1NiJ9..", "qk_live_"}) {
            assertRejected(garbage);
        }
        TestAccounts.Session session = quipu.accounts.newSession();
        String[] parts = session.accessToken().split("\\.");
        // A real token with its signature cut off, or with another payload under its signature.
        assertRejected(parts[0] + "." + parts[1] + ".");
        String other = quipu.accounts.newSession().accessToken().split("\\.")[1];
        assertRejected(parts[0] + "." + other + "." + parts[2]);
    }

    private void assertRejected(String token) {
        assertProblem(quipu.get("/v1/me", token), 401, "unauthorized");
    }

    /** The claims of a real session's access token, as Quipu issues them. */
    private JWTClaimsSet.Builder claims(TestAccounts.Session session) throws Exception {
        JWTClaimsSet real = SignedJWT.parse(session.accessToken()).getJWTClaimsSet();
        Instant now = quipu.clock.instant();
        return new JWTClaimsSet.Builder()
                .issuer(real.getIssuer())
                .subject(real.getSubject())
                .claim("sid", real.getStringClaim("sid"))
                .jwtID(UUID.randomUUID().toString())
                .issueTime(Date.from(now))
                .expirationTime(Date.from(now.plus(Duration.ofMinutes(15))));
    }

    private ECKey quipuKey() throws Exception {
        return ECKey.parse(quipu.signingKeyJwk());
    }

    private static String sign(JWTClaimsSet claims, ECKey key) throws Exception {
        SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.ES256).keyID(key.getKeyID())
                .type(JOSEObjectType.JWT).build(), claims);
        jwt.sign(new ECDSASigner(key));
        return jwt.serialize();
    }

    private static String hmac(JWSAlgorithm alg, byte[] secret, JWTClaimsSet claims) throws Exception {
        SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(alg).type(JOSEObjectType.JWT).build(), claims);
        JWSSigner signer = new MACSigner(secret);
        jwt.sign(signer);
        return jwt.serialize();
    }
}
