package pe.quipu.api.accounts;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.ECDSASigner;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.source.ImmutableJWKSet;
import com.nimbusds.jose.proc.BadJOSEException;
import com.nimbusds.jose.proc.JWSVerificationKeySelector;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.nimbusds.jwt.proc.BadJWTException;
import com.nimbusds.jwt.proc.ConfigurableJWTProcessor;
import com.nimbusds.jwt.proc.DefaultJWTProcessor;
import pe.quipu.api.auth.SessionPrincipal;

import java.text.ParseException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * Issues and verifies access tokens: ES256 JWTs with {@code iss}, {@code sub} (account), {@code sid} (session),
 * {@code jti}, {@code iat}, {@code exp}. Verification accepts ES256 only (so {@code alg: none} and HMAC tokens
 * fail whatever their key), checks the signature against Quipu's key, the issuer and the expiry by the injected
 * clock, and the denylist. Tokens are never logged.
 */
public final class AccessTokens {

    private static final Base64.Encoder URL_NO_PADDING = Base64.getUrlEncoder().withoutPadding();

    private final ECKey signingKey;
    private final ECDSASigner signer;
    private final ConfigurableJWTProcessor<SecurityContext> processor = new DefaultJWTProcessor<>();
    private final String issuer;
    private final Duration lifetime;
    private final Clock clock;
    private final TokenDenylist denylist;

    public AccessTokens(ECKey signingKey, String issuer, Duration lifetime, Clock clock, TokenDenylist denylist) {
        this.signingKey = signingKey;
        this.issuer = issuer;
        this.lifetime = lifetime;
        this.clock = clock;
        this.denylist = denylist;
        try {
            this.signer = new ECDSASigner(signingKey);
        } catch (JOSEException e) {
            throw new IllegalStateException("the JWT signing key cannot sign", e);
        }
        processor.setJWSKeySelector(new JWSVerificationKeySelector<>(JWSAlgorithm.ES256,
                new ImmutableJWKSet<>(new JWKSet(signingKey.toPublicJWK()))));
        // Our own claims check, so that expiry follows the injected clock (nimbus' default reads the system clock).
        processor.setJWTClaimsSetVerifier((claims, context) -> {
            if (!issuer.equals(claims.getIssuer())) {
                throw new BadJWTException("wrong issuer");
            }
            if (claims.getSubject() == null || claims.getJWTID() == null || claims.getIssueTime() == null
                    || claims.getExpirationTime() == null || claimText(claims, "sid") == null) {
                throw new BadJWTException("missing claims");
            }
            if (!clock.instant().isBefore(claims.getExpirationTime().toInstant())) {
                throw new BadJWTException("expired");
            }
        });
    }

    /** A freshly issued access token and what it says. */
    public record Issued(String token, String jti, Instant expiresAt, long expiresIn) {
    }

    public Issued issue(UUID accountId, UUID sessionId) {
        Instant now = clock.instant();
        Instant expiresAt = now.plus(lifetime);
        String jti = UUID.randomUUID().toString();
        JWTClaimsSet claims = new JWTClaimsSet.Builder()
                .issuer(issuer)
                .subject(accountId.toString())
                .claim("sid", sessionId.toString())
                .jwtID(jti)
                .issueTime(Date.from(now))
                .expirationTime(Date.from(expiresAt))
                .build();
        SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.ES256)
                .keyID(signingKey.getKeyID())
                .type(JOSEObjectType.JWT)
                .build(), claims);
        try {
            jwt.sign(signer);
        } catch (JOSEException e) {
            throw new IllegalStateException("cannot sign an access token", e);
        }
        return new Issued(jwt.serialize(), jti, expiresAt, lifetime.toSeconds());
    }

    /** The session behind a valid, unexpired, undenied access token; empty for anything else. */
    public Optional<SessionPrincipal> verify(String token) {
        if (!compactSerialization(token)) {
            return Optional.empty();
        }
        JWTClaimsSet claims;
        try {
            claims = processor.process(token, null);
        } catch (ParseException | BadJOSEException | JOSEException e) {
            return Optional.empty();
        }
        String sid = claimText(claims, "sid");
        if (denylist.deniesToken(claims.getJWTID()) || denylist.deniesSession(sid)) {
            return Optional.empty();
        }
        try {
            return Optional.of(new SessionPrincipal(UUID.fromString(claims.getSubject()), UUID.fromString(sid),
                    claims.getJWTID(), claims.getExpirationTime().toInstant()));
        } catch (IllegalArgumentException notUuid) {
            return Optional.empty();
        }
    }

    /**
     * Whether the token is three segments of base64url without padding, each in its one canonical spelling
     * (RFC 7515 §2 and §7.1). nimbus decodes leniently: it takes padding, the standard alphabet's {@code +} and
     * {@code /}, skips characters outside the alphabet and ignores the unused low bits of the last character, so
     * one signature would have many spellings that all verify.
     */
    static boolean compactSerialization(String token) {
        String[] segments = token.split("\\.", -1);
        if (segments.length != 3) {
            return false;
        }
        for (String segment : segments) {
            for (int i = 0; i < segment.length(); i++) {
                char c = segment.charAt(i);
                boolean alphabet = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
                        || c == '-' || c == '_';
                if (!alphabet) {
                    return false;
                }
            }
            try {
                byte[] bytes = Base64.getUrlDecoder().decode(segment);
                if (!URL_NO_PADDING.encodeToString(bytes).equals(segment)) {
                    return false; // Non-zero unused bits: another spelling of the same bytes.
                }
            } catch (IllegalArgumentException impossibleLength) {
                return false;
            }
        }
        return true;
    }

    /** The public half of the signing key, as {@code GET /.well-known/jwks.json} serves it. */
    public Map<String, Object> jwks() {
        return new JWKSet(signingKey.toPublicJWK()).toJSONObject(true);
    }

    private static String claimText(JWTClaimsSet claims, String name) {
        Object value = claims.getClaim(name);
        return value instanceof String text ? text : null;
    }
}
